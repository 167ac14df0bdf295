#pragma once
// The one output guard: every file tcgen writes (--out, --lse, --trace, --svg,
// --save-inputs' files, tcgen run's --trace) is checked here before any work
// starts, so that a careless command line loses nothing.
// - It can be written (check_output_path: its directory exists and is
//   writable, it is not a directory), else IoError (exit 3).
// - It is none of the run's inputs and no other output's file, by the file's
//   identity, not its spelling: ./a.npy, a symlink to it and a hard link of it
//   are one file. An existing file is its (device, inode); a path not there
//   yet is its directory's (device, inode) with its name.
// - It does not exist yet, unless --force: replacing a file is asked for.
// Character devices and pipes (/dev/null, /dev/stdout) take any number of
// writes and lose nothing: only their writability is checked.
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace tcgen::cli {

class Args;

class RunFiles {
 public:
  // `force`: --force was given, so an output may replace a file that exists (never an input).
  explicit RunFiles(bool force = false) : force_(force) {}
  // A file the run reads, given to `option`.
  void input(std::string_view option, const std::string& path);
  // A file the run writes, given to `option`, checked as above against the
  // inputs and outputs named so far: IoError (exit 3) when it cannot be
  // written, tcgen::Error (exit 2) when it would overwrite something.
  void output(std::string_view option, const std::string& path);
  // Whether any output was named (--force with none is refused by guard_files).
  bool any_output() const { return outputs_named_ > 0; }

 private:
  struct Named {
    std::string option, path, id;
  };
  bool force_;
  int outputs_named_ = 0;
  std::vector<Named> inputs_, outputs_;
};

// The guard for a verb's command line: the options of `inputs` and `outputs`
// that are given, in that order, with --force as the verb's. Returns the
// guard, so that a verb can name more outputs (--save-inputs' files).
RunFiles guard_files(const Args& a, std::initializer_list<const char*> inputs, std::initializer_list<const char*> outputs);
// Refuses (exit 2) a --force given with none of the outputs, which `outputs`
// lists for the sentence ("--out, --lse, --trace or --save-inputs"): it would
// replace nothing, and was probably meant for an option left out.
void check_force(const Args& a, const RunFiles& files, std::string_view outputs);

}  // namespace tcgen::cli
