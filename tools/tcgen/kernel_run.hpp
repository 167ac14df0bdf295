#pragma once
// What the verbs that run a kernel (gemm, fmha) share, written once: the
// outputs checked before the work, --backend and --ptx, the B200's presence,
// the --save-inputs directory, and a PTX run's statistics in the report.
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "args.hpp"
#include "report.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/exec/backend.hpp"
#include "tcgen/ptx/launch.hpp"
#include "tcgen/ptx/module.hpp"

namespace tcgen::cli {

// host: the host model; ptx: the kernel's sm_100a PTX on the host model; sm100: a B200.
enum class Backend { host, ptx, sm100 };
const char* name(Backend b);

// Checks the options that name output files (exit 3 before any work when one
// cannot be written), and that --out-f32 comes with --out.
void check_outputs(const Args& a, std::initializer_list<const char*> options);

// --save-inputs DIR: DIR/NAME.npy for each of `names`, checked writable
// before the work; empty without the option.
class SavedInputs {
 public:
  SavedInputs(const Args& a, std::vector<std::string> names);
  bool wanted() const { return !dir_.empty(); }
  const std::string& dir() const { return dir_; }
  std::string path(const std::string& name) const { return dir_ + "/" + name + ".npy"; }
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::string dir_;
  std::vector<std::string> names_;
};

// The files of a run kept apart (run_files.hpp), before anything is read or
// written: the options in `inputs` and `outputs` that are given, and the
// --save-inputs files, which must be new unless --force (exit 2 otherwise).
void check_run_files(const Args& a, std::initializer_list<const char*> inputs, std::initializer_list<const char*> outputs,
                     const SavedInputs& saved);

// --backend (default host) and --ptx (only with ptx). sm100 is checked here:
// exit 3 (the environment) without an sm_100 GPU, exit 2 in a build without CUDA.
Backend parse_backend(const Args& a);

// --threads N: the OS threads that run a host-model launch's CTAs at once,
// 1 to 1024; 0 (one per core) without the option.
unsigned parse_threads(const Args& a);

// The kernels' PTX for --backend ptx: --ptx FILE, or what this build
// compiled (`built`, empty where nvcc was not found) of `kernels`' source.
ptx::Module load_kernels(const Args& a, const std::string& built, const char* kernels);

// "executed: N PTX instructions" and each PTX-letter warning with its count, as text and fields.
void report_ptx_stats(Report& report, const exec::RunStats& stats);

// The libraries name a problem's fields ("seq_q", "backend"); the CLI names
// the options that set them. A field beside the option that sets it:
struct FieldOption {
  const char* field;
  const char* option;
};
// Throws a tcgen::Error like `e` that names its field's option (value and
// expected kept) when `fields` has the field; returns otherwise.
void raise_as_option(const Error& e, std::span<const FieldOption> fields);
// f(), with a tcgen::Error it raises naming its field's option; any other
// error (a ModelError, an ExecutionError, ...) goes on as it was thrown.
template <class F>
auto as_options(std::span<const FieldOption> fields, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    raise_as_option(e, fields);
    throw;
  }
}

}  // namespace tcgen::cli
