#include "kernel_run.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <typeinfo>

#include "output_file.hpp"
#include "progress.hpp"
#include "run_files.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/timing/chrome_trace.hpp"
#if defined(TCGEN_SM100)
#include "tcgen/exec/sm100_device.hpp"
#endif

namespace tcgen::cli {

const char* name(Backend b) {
  switch (b) {
    case Backend::host: return "host";
    case Backend::ptx: return "ptx";
    case Backend::sm100: return "sm100";
  }
  return "?";
}

SavedInputs::SavedInputs(const Args& a, std::vector<std::string> names)
    : dir_(a.text_or("save-inputs", "")), names_(std::move(names)) {
  // Named apart from its files' own check, which could only say that DIR/q.npy's directory is no directory.
  struct stat st {};
  if (wanted() && ::stat(dir_.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
    throw IoError("--save-inputs", dir_, "expected a directory to save the inputs in: it is a file");
}

void check_run_files(const Args& a, std::initializer_list<const char*> inputs, std::initializer_list<const char*> outputs,
                     const SavedInputs& saved) {
  if (a.flag("out-f32") && !a.has("out")) fail("--out-f32", "(given)", "expected --out, the file whose type it sets");
  RunFiles files = guard_files(a, inputs, outputs);
  if (a.has("trace")) files.output("--trace", a.text("trace"));  // every kernel verb's (kHostModelOptions)
  if (saved.wanted())
    for (const std::string& n : saved.names()) files.output("--save-inputs", saved.path(n));
  std::string names;
  for (const char* o : outputs) names += std::string("--") + o + ", ";
  check_force(a, files, names + "--trace or --save-inputs");
}

namespace {

Backend backend_of(const Args& a) {
  const std::string b = a.text("backend");
  if (b != "host" && b != "ptx" && b != "sm100")
    fail("--backend", b, "expected host (the host model), ptx (the kernel's PTX on the host model) or sm100 (a B200)");
  if (a.has("ptx") && b != "ptx") fail("--ptx", a.text("ptx"), "expected --backend ptx, which runs it");
  if (a.has("threads") && b == "sm100")
    fail("--threads", a.text("threads"), "expected the host model (--backend host or ptx): a B200 runs the CTAs on its SMs");
  if (b != "sm100") return b == "host" ? Backend::host : Backend::ptx;
#if defined(TCGEN_SM100)
  if (const std::string why = exec::sm100_unavailable(); !why.empty())
    throw IoError("--backend", "sm100",
                  "expected an sm_100 GPU (B200, GB200) to run on: " + why + "; --backend host runs the kernel on the host model");
#else
  fail("--backend", "sm100",
       "expected a build with CUDA; this one has none (nvcc not found at configure time); --backend host runs the kernel "
       "on the host model");
#endif
  return Backend::sm100;
}

}  // namespace

Backend parse_backend(const Args& a) {
  const Backend backend = backend_of(a);
  parse_ptx_run(a, backend);  // --timing, --timing-sms checked now too, not after the inputs are drawn and saved
  return backend;
}

unsigned parse_threads(const Args& a) { return static_cast<unsigned>(a.integer_or("threads", 0, 1, 1024)); }

ptx::Module load_kernels(const Args& a, const std::string& built, const char* kernels) {
  if (a.has("ptx")) {
    check_input_file("--ptx", a.text("ptx"));
    return ptx::Module::load(a.text("ptx"));
  }
  if (built.empty())
    fail("--backend", "ptx",
         std::string("expected the kernels' PTX, which this build lacks (nvcc not found at configure time): give --ptx "
                     "FILE, from nvcc -ptx -lineinfo -gencode arch=compute_100a,code=sm_100a of the ") +
             kernels + " kernels");
  if (!std::ifstream(built))
    fail("--ptx", built, "expected the PTX this build compiled; rebuild (cmake --build build) or give --ptx FILE");
  return ptx::Module::load(built);
}

bool parse_provenance(const Args& a) {
  const std::string v = a.has("provenance") ? a.text("provenance") : "on";
  if (v != "on" && v != "off") fail("--provenance", v, "expected on or off");
  return v == "on";
}

exec::LaunchOptions host_model_launch(const Args& a) {
  exec::LaunchOptions launch;
  launch.progress = progress_display(a.flag("quiet"));
  launch.threads = parse_threads(a);
  launch.provenance = parse_provenance(a);
  launch.watchdog = static_cast<std::uint64_t>(
      a.integer_or("watchdog", static_cast<std::int64_t>(launch.watchdog), 0, std::int64_t{1} << 50));
  return launch;
}

PtxRun parse_ptx_run(const Args& a, Backend backend) {
  PtxRun r;
  // The value first: 0 is wrong with any backend, and saying --backend ptx is needed would send the user
  // to fix what does not make it right.
  r.timing_sms = static_cast<int>(a.integer_or("timing-sms", 0, 1, 148));
  const bool timing = a.flag("timing") || a.has("timing-sms") || a.has("trace");
  if (timing && backend != Backend::ptx)
    fail("--timing", backend == Backend::sm100 ? "with --backend sm100" : "with --backend host",
         "expected --backend ptx: the timing model replays the kernel's PTX");
  if (a.has("timing-sms") && !a.flag("no-reference"))
    fail("--timing-sms", a.text("timing-sms"), "expected --no-reference too: the CTAs outside the sample do not run");
  if (timing) r.timing.emplace();
  r.trace = a.text_or("trace", "");  // checked with the other outputs (check_run_files)
  return r;
}

void report_ptx_stats(Report& report, const ptx::LaunchStats& stats) {
  report.text("executed: %llu PTX instructions in %llu CTAs\n", static_cast<unsigned long long>(stats.instructions),
              static_cast<unsigned long long>(stats.ctas));
  report.field("ptx_instructions", static_cast<std::int64_t>(stats.instructions));
  report.field("ptx_ctas", static_cast<std::int64_t>(stats.ctas));
  for (const auto& [rule, count] : stats.warnings) {
    const auto first = stats.first_warning.find(rule);
    const std::string where = first == stats.first_warning.end() ? std::string() : first->second;
    report.text("warning: %s broken %llu times (a PTX-letter rule)%s%s\n", rule.c_str(),
                static_cast<unsigned long long>(count), where.empty() ? "" : "; first at ", where.c_str());
    report.field("warning_" + rule, static_cast<std::int64_t>(count));
    if (!where.empty()) report.field("warning_" + rule + "_first", where);
  }
  if (stats.timing.empty()) return;
  std::string launches;
  for (const timing::Prediction& p : stats.timing) {
    report.text("%s", p.summary().c_str());
    launches += (launches.empty() ? "" : ", ") + p.json();
  }
  report.raw("timing", "[" + launches + "]");
}

void raise_as_option(const Error& e, const Args& a) {
  const auto sets = [&](const Option& o) {
    for (std::string_view f = o.fields; !f.empty();) {
      const std::size_t space = f.find(' ');
      if (f.substr(0, space) == e.field()) return true;
      f = space == std::string_view::npos ? std::string_view() : f.substr(space + 1);
    }
    return false;
  };
  const Option* chosen = nullptr;
  for (const Option& o : a.options())
    if (sets(o) && (!chosen || (a.has(o.name) && !a.has(chosen->name)))) chosen = &o;
  if (chosen) fail(("--" + std::string(chosen->name)).c_str(), e.value(), e.expected());
}

namespace {

// A kernel that did not finish: its error on stderr, "result: FAILED", exit 1.
int report_failed_launch(const KernelJob& job, Backend backend, const std::exception& e, Report& report) {
  std::fflush(stdout);
  std::cerr << "tcgen: the " << job.kernel() << " kernel failed on "
            << (backend == Backend::sm100 ? "the sm100 GPU" : "the host model") << (backend == Backend::ptx ? " (PTX)" : "")
            << ": " << e.what() << '\n';
  report.text("result: FAILED (the kernel did not finish)\n");
  report.field("passed", false);
  report.field("failure", e.what());
  report.finish();
  return 1;
}

}  // namespace

int run_kernel_job(KernelJob& job, const Args& a, Backend backend, const ptx::Module* kernels,
                   const exec::LaunchOptions& launch, Report& report) {
  // The problem is valid by now: an error from the run is the kernel's (a broken
  // tcgen05 rule, a deadlock, a CUDA error), reported with exit 1, not 2.
  exec::RunStats stats;
  PtxRun ptx = parse_ptx_run(a, backend);  // the PTX interpreter's requests and counts (--backend ptx)
  try {
    report.text("backend: %s\n", job.backend_text(backend, kernels).c_str());
    std::fflush(stdout);
    stats = job.launch(backend, kernels, ptx, launch);
  } catch (const Error& e) {
    // A --ptx file without the kernel (ptx::Module::entry_instance, before any thread runs) is a bad
    // input, exit 2, not a kernel that failed its run (exit 1).
    if (typeid(e) == typeid(Error) && e.field() == "kernel") throw;
    return report_failed_launch(job, backend, e, report);
  } catch (const std::exception& e) {
    return report_failed_launch(job, backend, e, report);
  }
  if (backend == Backend::ptx) report_ptx_stats(report, ptx.stats);
  if (!ptx.trace.empty()) {
    std::vector<timing::TraceLaunch> launches;
    double at = 0;
    for (std::size_t i = 0; i < ptx.stats.timing.size() && i < ptx.stats.timelines.size(); ++i) {
      launches.push_back({ptx.stats.timing[i].short_kernel(), ptx.stats.timelines[i], at});
      at += ptx.stats.timing[i].seconds;
    }
    write_output("--trace", ptx.trace, timing::chrome_trace(launches, *ptx.timing));
    report.text("timeline: %s (open it in ui.perfetto.dev)\n", ptx.trace.c_str());
  }
  job.report_time(backend, stats.seconds, report);
  bool passed = true;
  if (!a.flag("no-reference")) {
    passed = job.check(report);
  } else {
    report.text("result: not checked (--no-reference: no fp64 reference was computed)\n");
    report.field("checked", false);
  }
  job.write_outputs(report);
  report.finish();
  return passed ? 0 : 1;
}

}  // namespace tcgen::cli
