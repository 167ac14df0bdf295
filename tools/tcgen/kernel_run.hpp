#pragma once
// What the verbs that run a kernel (gemm, fmha, sparse-decode) share, written
// once: the outputs checked before the work, --backend and --ptx, the B200's
// presence, the --save-inputs directory, the library's errors told as the
// options', and the driver that runs a parsed problem on its backend, checks
// it against the reference and reports.
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "args.hpp"
#include "report.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/exec/backend.hpp"
#include "tcgen/exec/launch_options.hpp"
#include "tcgen/ptx/backend.hpp"
#include "tcgen/ptx/launch.hpp"
#include "tcgen/ptx/module.hpp"

namespace tcgen::cli {

// host: the host model; ptx: the kernel's sm_100a PTX on the host model; sm100: a B200.
enum class Backend { host, ptx, sm100 };
const char* name(Backend b);

// --save-inputs DIR: DIR/NAME.npy for each of `names` (exit 3 when DIR is a
// file); empty without the option. Its files are checked by check_run_files.
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

// The one output guard (run_files.hpp) over a kernel verb's files, before
// anything is read or written: the options in `inputs` and `outputs` that are
// given, --trace and the --save-inputs files; each output writable (exit 3),
// no input or other output (exit 2), and new unless --force (exit 2). Also
// that --out-f32 comes with --out.
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
void report_ptx_stats(Report& report, const ptx::LaunchStats& stats);

// The libraries name a problem's fields ("seq_q", "backend"); the options
// declare the fields they set (Option::fields). Throws a tcgen::Error like `e`
// naming the option of `a` that sets its field (value and expected kept): the
// one given where several set it (sparse-decode's --batch, or --q for files),
// else the first declared; returns when no option sets it.
void raise_as_option(const Error& e, const Args& a);
// f(), with a tcgen::Error it raises naming its field's option; any other
// error (a ModelError, an ExecutionError, ...) goes on as it was thrown.
template <class F>
auto as_options(const Args& a, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    raise_as_option(e, a);
    throw;
  }
}

// What --backend ptx is asked for beyond the launch options (--timing,
// --timing-sms), and what it counted: each launch's counts and predictions.
struct PtxRun {
  ptx::LaunchStats stats;
  std::optional<timing::Machine> timing;
  int timing_sms = 0;
  std::string trace;  // --trace FILE.json: the timeline, written after the run
};
// The kernel verbs' options of the host model: --timing, --timing-sms and --trace (what they ask of
// --backend ptx), and --provenance.
inline constexpr Option kHostModelOptions[] = {
    {"timing", {},
     "with --backend ptx: each launch's predicted time on a B200\n"
     "(docs/timing.md): TFLOP/s, the unit that bounds it, each\n"
     "unit's busy share, each warp's waits by barrier"},
    {"timing-sms", "N",
     "with --timing: simulate the CTAs of N SMs (1 to 148) of a\n"
     "large grid; the other CTAs do not run: needs --no-reference"},
    {"trace", "FILE.json",
     "with --backend ptx: the kernel's timeline (implies --timing),\n"
     "a track per warp and unit of the first SM group, in the\n"
     "trace-event format ui.perfetto.dev opens"},
    {"provenance", "on|off",
     "host and ptx: where each chunk of shared memory came from,\n"
     "held against a tile of one tensor at each MMA (a warning,\n"
     "operand_not_a_tile; docs/model.md); off is faster\n"
     "(default {--provenance})",
     "on"},
    {"watchdog", "N",
     "host and ptx: a thread that runs N instructions in a row with\n"
     "no memory write, barrier or progress of another warp is a\n"
     "livelock, reported at its loop (0: never; default 2^27)"}};
PtxRun parse_ptx_run(const Args& a, Backend backend);
// --provenance: on (the default) or off.
bool parse_provenance(const Args& a);
// The host model's launch options every kernel verb reads: --quiet (no progress), --threads, --provenance,
// --watchdog.
exec::LaunchOptions host_model_launch(const Args& a);

// f(the backend's object): exec::HostModel, ptx::Interpreter over `kernels`
// (strict as launch.letters_as_errors, its counts and predictions added to
// `ptx.stats`), or exec::Sm100 (only in a build with CUDA: parse_backend
// refuses sm100 elsewhere).
template <class F>
exec::RunStats on_backend(Backend backend, const ptx::Module* kernels, PtxRun& ptx, const exec::LaunchOptions& launch,
                          F&& f) {
  if (backend == Backend::ptx)
    return f(ptx::Interpreter{.module = *kernels, .launch = launch, .strict = launch.letters_as_errors,
                              .stats = &ptx.stats, .timing = ptx.timing ? &*ptx.timing : nullptr,
                              .timing_sms = ptx.timing_sms, .timeline = !ptx.trace.empty()});
#if defined(TCGEN_SM100)
  if (backend == Backend::sm100) return f(exec::Sm100{});
#endif
  return f(exec::HostModel{launch});
}

// A kernel verb's problem, parsed, validated and described: what differs
// between gemm, fmha and sparse-decode once the driver takes over.
class KernelJob {
 public:
  virtual ~KernelJob() = default;
  // The kernel as the failure sentence names it: "GEMM", "FMHA", "sparse decode".
  virtual const char* kernel() const = 0;
  // What runs it, after "backend: " (`kernels`: the PTX module for --backend ptx).
  virtual std::string backend_text(Backend backend, const ptx::Module* kernels) const = 0;
  // The kernel's launch (on_backend), keeping its output for check() and write_outputs();
  // through the PTX interpreter its counts and predictions are added to `ptx.stats`.
  virtual exec::RunStats launch(Backend backend, const ptx::Module* kernels, PtxRun& ptx,
                                const exec::LaunchOptions& launch) = 0;
  // The kernel's time, as text and fields.
  virtual void report_time(Backend backend, double seconds, Report& report) const = 0;
  // The fp64 reference and the comparison with it, reported; true when within the bounds.
  virtual bool check(Report& report) const = 0;
  // --out and the other output files.
  virtual void write_outputs(Report& report) const = 0;
};

// The driver: runs `job` on `backend`; a kernel that does not finish is
// reported (stderr and "result: FAILED") with exit 1. Then the PTX run's
// statistics, the time, the check unless --no-reference, the outputs and the
// JSON report; exit 0 within the bounds (or unchecked), 1 beyond.
int run_kernel_job(KernelJob& job, const Args& a, Backend backend, const ptx::Module* kernels,
                   const exec::LaunchOptions& launch, Report& report);

}  // namespace tcgen::cli
