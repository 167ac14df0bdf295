#pragma once
// The files one run reads and writes, kept apart by the file's identity, not
// its spelling: ./a.npy, a symlink to it and a hard link of it are one file.
// Checked before anything is read or written, so that no output overwrites
// an input and no two outputs overwrite each other ("wrote o.npy" twice).
// An existing file is its (device, inode); a path not there yet is its
// directory's (device, inode) with its name. Character devices and pipes
// (/dev/null, /dev/stdout on a terminal) take any number of writes and lose
// nothing: they are left out.
#include <string>
#include <string_view>
#include <vector>

namespace tcgen::cli {

class RunFiles {
 public:
  // A file the run reads, given to `option`.
  void input(std::string_view option, const std::string& path);
  // A file the run writes, given to `option`: a tcgen::Error (exit 2) when it
  // is one of the inputs or outputs named so far. With `fresh`, a file that
  // exists is refused too unless `force` (--save-inputs without --force).
  void output(std::string_view option, const std::string& path, bool fresh = false, bool force = false);

 private:
  struct Named {
    std::string option, path, id;
  };
  std::vector<Named> inputs_, outputs_;
};

}  // namespace tcgen::cli
