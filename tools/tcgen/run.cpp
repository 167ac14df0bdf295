// tcgen run [--strict] [--seed N] [--threads N] [--quiet] -- PROGRAM ARGS...: an
// unmodified CUDA program on the host model. The program's dynamic loader
// finds tcgen's libcudart.so.13 first (LD_LIBRARY_PATH), which runs each
// kernel's compute_100a PTX with every rule checked; its exit code is the
// program's. The runtime's one-line summary comes back through a pipe, so a
// program that never loaded it (built with the static runtime) is named.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "args.hpp"
#include "output_file.hpp"
#include "run_files.hpp"
#include "tcgen/timing/machine.hpp"
#include "report.hpp"
#include "tcgen/core/error.hpp"
#include "help.hpp"
#include "verbs.hpp"

namespace tcgen::cli {

namespace {

constexpr std::string_view kHelpHead = R"(usage: tcgen run [--strict] [--seed N] [--threads N] [--watchdog N] [--sms N] [--quiet] [--json]
                 [--profile] [--timing] [--timing-sms N] [--timing-set NAME=VALUE]... [--trace FILE.json [--force]]
                 -- PROGRAM [ARGS...]

Runs PROGRAM, a CUDA program built for sm_100a, on the host model: every
kernel it launches runs as PTX through the model of tcgen05 with each
hardware rule checked; cudaMalloc'ed memory is host memory. Build it with

  nvcc -gencode arch=compute_100a,code=[sm_100a,compute_100a] -cudart shared ...

(the host model runs the compute_100a PTX; -cudart shared lets tcgen's
libcudart.so.13 stand in for NVIDIA's). Programs that call the driver API
alone load tcgen's libcuda.so.1 and run the PTX they load. Triton programs
run as they are (tcgen run -- python3 prog.py): tcgen run points Triton's
ptxas at a pass-through, so Triton hands the driver its PTX, and its
launcher at tcgen's libcuda (TRITON_PTXAS_BLACKWELL_PATH,
TRITON_LIBCUDA_PATH; TRITON_CACHE_DIR, kept apart from a GPU's cache, is
$XDG_CACHE_HOME/tcgen/triton), each unless already set. A kernel fault prints the model's
report, and the program's later CUDA calls fail as after a fault on a GPU.
At exit one line sums up: kernels launched, PTX-letter warnings by rule; a
line for each rule then says where it was first broken (CUDA file:line with
-lineinfo, PTX line, kernel, block, warp, lane) and how. A fault's report
starts with a compiler-style "file:line: error: ..." line.

)";

constexpr std::string_view kHelpTail = R"(
Driver functions the program looks up that tcgen does not emulate are named
once, after it ends (it was given null pointers for them).

Exit: the program's exit code (128 + N when signal N ended it); 2 for a bad
command line, a program that cannot be started, one that carries NVIDIA's
static CUDA runtime (nvcc's default: rebuild with -cudart shared), or one
that never loaded tcgen's runtime, whatever its own exit code.
)";

// Before "--" (parsed by hand: everything after it is the program's).
constexpr Option kOptions[] = {
    {"strict", {}, "PTX-letter rules (docs/model.md) are errors, not counted warnings"},
    {"seed", "N", "schedule threads in a random order drawn from N (races show up)"},
    {"threads", "N",
     "OS threads running a launch's CTAs at once, 1 to 1024 (default:\n"
     "one per core); each cluster keeps its own schedule and seed, so\n"
     "the results are the same on any number unless CTAs meet through\n"
     "global memory (atomics, flags)"},
    {"watchdog", "N",
     "a thread that runs N instructions in a row with no memory write,\n"
     "barrier or progress of another warp is a livelock, reported at\n"
     "its loop (0: never; default 2^27)"},
    {"sms", "N",
     "the device reports N SMs (1 to 148; default 148), so that a\n"
     "persistent kernel's CTAs each take several tiles of a small\n"
     "problem, as at a large one on a B200 (not with --timing)"},
    {"quiet", {}, "no summary line, and no progress line (a launch still\n"
                  "running after 5 s says every 5 s how many instructions\n"
                  "and CTAs it has done)"},
    {"provenance", "on|off",
     "where each chunk of shared memory came from (a TMA load, a copy\n"
     "through registers), held against a tile of one tensor at each\n"
     "MMA: a legal descriptor that reads the wrong bytes (LBO/SBO\n"
     "swapped, a swizzle not the TMA box's, the other major-ness) is\n"
     "named at the MMA (operand_not_a_tile, docs/model.md); default on"},
    {"profile", {},
     "where the host time goes: per kernel its launches, CTAs, PTX\n"
     "thread-instructions, host seconds and instructions per second,\n"
     "and the 10 PTX lines (with CUDA lines) that executed most; the\n"
     "summary line names the kernel that took most host time"},
    {"timing", {},
     "after each kernel, its predicted time on a B200 from the timing\n"
     "model (docs/timing.md): TFLOP/s, percent of peak, the unit that\n"
     "bounds it, each unit's busy share, each warp's waits by barrier"},
    {"timing-sms", "N",
     "simulate the CTAs of N SMs (1 to 148) of a large grid, spread\n"
     "over the chip, with the memory system shared as by the whole grid;\n"
     "the other CTAs do not run, so the kernel's results are not\n"
     "complete (implies --timing)"},
    {"timing-set", "NAME=VALUE",
     "change one of the timing model's constants for this run (what if\n"
     "L2 were faster?): a name of docs/timing.md's table, e.g.\n"
     "l2_bytes_per_cycle=64; repeatable (implies --timing)"},
    {"trace", "FILE.json",
     "the timeline of every kernel, in the Chrome trace-event format\n"
     "that ui.perfetto.dev opens: a track per warp and per unit of the\n"
     "first SM group (implies --timing)"},
    {"force", {}, "with --trace: replace the file if it exists (never the program\nor a file among its arguments)"},
    {"json", {},
     "the summary as one JSON object, the last line on stderr (stdout\n"
     "is the program's): verb, program, arguments, exit_code, signal,\n"
     "kernel_launches, warnings {rule: count}, first_broken {rule:\n"
     "where it was first broken and how}, fault (the sticky\n"
     "error's name, or null), driver_only, unemulated_driver_functions,\n"
     "launch_attributes_without_effect {attribute: launches},\n"
     "timing (with --timing: one object per launch with kernel, grid,\n"
     "predicted_seconds, tensor_flops, tflops, bytes_hbm, bound, busy,\n"
     "waits per warp), profile (with --profile: one object per kernel,\n"
     "most host time first, with kernel, launches, ctas,\n"
     "thread_instructions, host_seconds, instructions_per_second and\n"
     "hottest [{ptx_line, source, instruction, thread_instructions}]),\n"
     "ended_without_summary (null, or why there is no summary: a\n"
     "crash, an abort, _exit, the loader, the static runtime); always\n"
     "printed, after the sentence that says why where there is one"}};

// What tcgen's libraries told tcgen run through its pipe (TCGEN_RUN_FD): tagged
// lines ("loaded", "static_runtime", "unemulated NAME", "json KEY VALUE [N]",
// and "exec_failed WHY" from tcgen run's own child)
// and the summary text for people (every other line).
struct Heard {
  bool loaded = false, static_runtime = false;
  std::string static_runtime_in;  // the file that carries it, where the library could tell
  std::string exec_failed;  // why the program could not be started
  std::vector<std::string> unemulated;
  std::string json, text;
};

// Where Triton's cache lives under tcgen run: its "cubins" are PTX, which a GPU's run must not find.
std::string triton_cache() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  const std::filesystem::path base = xdg && *xdg ? xdg : std::filesystem::path(home && *home ? home : "/tmp") / ".cache";
  return (base / "tcgen" / "triton").string();
}

Heard parse_heard(const std::string& pipe) {
  Heard h;
  std::istringstream in(pipe);
  for (std::string line; std::getline(in, line);) {
    if (line == "loaded") h.loaded = true;
    else if (line == "static_runtime" || line.starts_with("static_runtime ")) {
      h.static_runtime = true;
      h.static_runtime_in = line.size() > 15 ? line.substr(15) : "";
    }
    else if (line.starts_with("unemulated ")) {
      if (std::find(h.unemulated.begin(), h.unemulated.end(), line.substr(11)) == h.unemulated.end())
        h.unemulated.push_back(line.substr(11));  // once each: a runtime looks some up under two versions
    }
    else if (line.starts_with("exec_failed ")) h.exec_failed = line.substr(12);
    else if (line.starts_with("json ")) h.json += line + "\n";
    else h.text += line + "\n";
  }
  return h;
}

// The run as one JSON object: the program, its exit, the runtime's "json KEY VALUE" facts, the driver
// functions it asked for in vain, and why there is no summary (`ended`, empty when there is one).
std::string summary_json(const Heard& h, std::span<const std::string> program, int code, int signal,
                         const std::string& ended) {
  Report r(true), warnings(true), first(true), no_effect(true);
  r.field("verb", "run");
  r.field("program", program[0]);
  r.field("arguments", std::vector<std::string>(program.begin() + 1, program.end()));
  r.field("exit_code", code);
  if (signal) r.field("signal", signal);
  else r.raw("signal", "null");
  std::string fault, driver_only = "false";
  std::int64_t launches = 0;
  std::string timing, profile;
  std::istringstream in(h.json);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string tag, key, value, count;
    words >> tag >> key >> value >> count;
    if (key == "kernel_launches") launches = std::stoll(value);
    if (key == "warning") warnings.field(value, static_cast<std::int64_t>(std::stoll(count)));
    if (key == "first") first.field(value, line.substr(std::string("json first ").size() + value.size() + 1));
    if (key == "fault") fault = value;
    if (key == "driver_only") driver_only = value;
    if (key == "no_effect") no_effect.field(value, static_cast<std::int64_t>(std::stoll(count)));
    if (key == "timing") timing += (timing.empty() ? "" : ", ") + line.substr(std::string("json timing ").size());
    if (key == "profile") profile += (profile.empty() ? "" : ", ") + line.substr(std::string("json profile ").size());
  }
  r.field("kernel_launches", launches);
  r.raw("warnings", warnings.object());
  r.raw("first_broken", first.object());
  if (fault.empty()) r.raw("fault", "null");
  else r.field("fault", fault);
  r.field("driver_only", driver_only == "true");
  r.field("unemulated_driver_functions", h.unemulated);
  r.raw("launch_attributes_without_effect", no_effect.object());
  r.raw("timing", "[" + timing + "]");
  r.raw("profile", "[" + profile + "]");
  if (ended.empty()) r.raw("ended_without_summary", "null");
  else r.field("ended_without_summary", ended);
  return r.object();
}

// The file execvp runs for `program`: itself when it names a path, else the first executable of PATH.
std::string program_file(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return program;
}

// --trace through the one output guard (run_files.hpp), before the program starts: writable, new
// unless --force, and none of the files the run reads: the program (a script bash is still reading)
// and the files among its arguments (python3 prog.py). Exit 2, not the guard's 3 for an unwritable
// path: tcgen run's other exit codes are the program's own, and 3 could be one of them.
void guard_trace(const std::string& trace, bool force, std::span<const std::string> program) {
  if (trace.empty()) {
    if (force) fail("--force", "(given)", "expected --trace, whose existing file it replaces");
    return;
  }
  RunFiles files(force);
  files.input("PROGRAM", program_file(program[0]));
  for (std::size_t j = 1; j < program.size(); ++j) files.input("ARGS", program[j]);  // "it is ARGS's prog.py"
  try {
    files.output("--trace", trace);
  } catch (const IoError& e) {
    throw Error(e.field(), e.value(), e.expected());
  }
}

// tcgen run's options, before "--" (parsed by hand: everything after it is the program's).
struct RunOptions {
  bool strict = false, quiet = false, json = false, timing = false, provenance = true, force = false, profile = false;
  std::string seed, threads, watchdog, sms, timing_sms, trace, timing_set;
  std::size_t program_at = 0;  // the program's index in the arguments
};

RunOptions parse_run_options(std::span<const std::string> args) {
  RunOptions o;
  std::size_t& i = o.program_at;
  for (; i < args.size() && args[i].rfind("--", 0) == 0; ++i) {
    if (args[i] == "--") {
      ++i;
      break;
    }
    if (args[i] == "--strict") o.strict = true;
    else if (args[i] == "--quiet") o.quiet = true;
    else if (args[i] == "--json") o.json = true;
    else if (args[i] == "--force") o.force = true;
    else if (args[i] == "--seed" && i + 1 < args.size())
      o.seed = std::to_string(parse_integer("seed", args[++i], 0, INT64_MAX));
    else if (args[i] == "--threads" && i + 1 < args.size())
      o.threads = std::to_string(parse_integer("threads", args[++i], 1, 1024));
    else if (args[i] == "--watchdog" && i + 1 < args.size())
      o.watchdog = std::to_string(parse_integer("watchdog", args[++i], 0, std::int64_t{1} << 50));
    else if (args[i] == "--sms" && i + 1 < args.size())
      o.sms = std::to_string(parse_integer("sms", args[++i], 1, 148));
    else if (args[i] == "--timing") o.timing = true;
    else if (args[i] == "--profile") o.profile = true;
    else if (args[i] == "--provenance" && i + 1 < args.size()) {
      if (args[i + 1] != "on" && args[i + 1] != "off") fail("--provenance", args[i + 1], "expected on or off");
      o.provenance = args[++i] == "on";
    }
    else if (args[i] == "--timing-sms" && i + 1 < args.size())
      o.timing_sms = std::to_string(parse_integer("timing-sms", args[++i], 1, 148)), o.timing = true;
    else if (args[i] == "--timing-set" && i + 1 < args.size()) {
      const std::string& pair = args[++i];
      const std::size_t eq = pair.find('=');
      if (eq == std::string::npos) fail("timing-set", pair, "NAME=VALUE, e.g. l2_bytes_per_cycle=64");
      timing::Machine scratch;  // the name and value checked now, not in the program
      timing::set_constant(scratch, pair.substr(0, eq), parse_positive("timing-set " + pair.substr(0, eq), pair.substr(eq + 1), "64", 1e18));
      o.timing_set += (o.timing_set.empty() ? "" : ",") + pair;
      o.timing = true;
    } else if (args[i] == "--trace" && i + 1 < args.size())
      o.trace = std::filesystem::absolute(args[++i]).string(), o.timing = true;
    else
      fail("option", args[i],
           "expected --strict, --quiet, --json, --seed N, --threads N, --watchdog N, --sms N, --provenance on|off, --profile, "
           "--timing, --timing-sms N, "
           "--timing-set NAME=VALUE, --trace FILE, --force or -- "
           "before the program; see tcgen run --help");
  }
  if (!o.sms.empty() && o.timing)
    fail("--sms", o.sms, "no --timing, --timing-sms, --timing-set or --trace: the timing model is a 148-SM B200");
  if (i == args.size()) fail("PROGRAM", "(none)", "expected a program to run: tcgen run [options] -- PROGRAM [ARGS...]");
  return o;
}

// The child's environment: the options for tcgen's runtime, its library first on the loader's path,
// and what Triton and CuTe DSL need to run their kernels on it.
void export_run_environment(const RunOptions& o, const std::filesystem::path& lib, const std::string& dump_dir, int fd) {
  const char* old = std::getenv("LD_LIBRARY_PATH");
  std::string path = lib.string();
  if (old && *old) path.append(":").append(old);
  setenv("LD_LIBRARY_PATH", path.c_str(), 1);
  setenv("TCGEN_RUN_FD", std::to_string(fd).c_str(), 1);
  if (o.strict) setenv("TCGEN_RUN_STRICT", "1", 1);
  if (!o.seed.empty()) setenv("TCGEN_RUN_SEED", o.seed.c_str(), 1);
  if (!o.threads.empty()) setenv("TCGEN_RUN_THREADS", o.threads.c_str(), 1);
  if (!o.watchdog.empty()) setenv("TCGEN_RUN_WATCHDOG", o.watchdog.c_str(), 1);
  if (!o.sms.empty()) setenv("TCGEN_RUN_SMS", o.sms.c_str(), 1);
  if (o.quiet) setenv("TCGEN_RUN_PROGRESS", "0", 1);
  if (o.json) setenv("TCGEN_RUN_JSON", "1", 1);
  if (o.timing) setenv("TCGEN_RUN_TIMING", "1", 1);
  if (o.profile) setenv("TCGEN_RUN_PROFILE", "1", 1);
  if (!o.provenance) setenv("TCGEN_RUN_PROVENANCE", "off", 1);
  if (!o.timing_sms.empty()) setenv("TCGEN_RUN_TIMING_SMS", o.timing_sms.c_str(), 1);
  if (!o.trace.empty()) setenv("TCGEN_RUN_TRACE", o.trace.c_str(), 1);
  if (!o.timing_set.empty()) setenv("TCGEN_RUN_TIMING_SET", o.timing_set.c_str(), 1);
  // Triton: its ptxas hands back the PTX (run/ptxas_passthrough.sh), its launcher links tcgen's libcuda,
  // and what it compiles so is cached apart from what it compiles for a GPU.
  setenv("TRITON_PTXAS_BLACKWELL_PATH", (lib.parent_path() / "bin" / "ptxas").c_str(), 0);
  setenv("TRITON_LIBCUDA_PATH", lib.c_str(), 0);
  setenv("TRITON_CACHE_DIR", triton_cache().c_str(), 0);
  // CuTe DSL: its JIT host code binds tcgen's runtime library, it leaves each kernel's PTX (with line
  // info) in a folder of this run's, compiles anew (a kernel from its disk cache leaves none), and the CUDA runtime calls
  // its Python makes through cuda-python are served by tcgen (run/python/sitecustomize.py).
  setenv("CUTE_DSL_LIBS", (lib / "cute_dsl" / "libcute_dsl_runtime.so").c_str(), 1);
  const std::string keep = std::getenv("CUTE_DSL_KEEP") ? std::getenv("CUTE_DSL_KEEP") : "";
  if (keep.find("ptx") == std::string::npos && keep.find("all") == std::string::npos)
    setenv("CUTE_DSL_KEEP", (keep.empty() ? "ptx" : keep + ",ptx").c_str(), 1);
  setenv("CUTE_DSL_DUMP_DIR", dump_dir.c_str(), 0);
  setenv("CUTE_DSL_NO_CACHE", "1", 0);
  setenv("CUTE_DSL_LINEINFO", "1", 0);  // .loc lines: reports give the kernel's Python file and line
  const char* python_path = std::getenv("PYTHONPATH");
  const std::string site = (lib.parent_path() / "python").string();
  setenv("PYTHONPATH", (python_path && *python_path ? site + ":" + python_path : site).c_str(), 1);
}

// What tcgen run says once the program has ended, and its exit code: the runtime's summary, or the
// one sentence that says why there is none; under --json, the JSON object last.
int report_run_end(const RunOptions& o, std::span<const std::string> args, const std::string& summary, int status) {
  const int signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  const int code = signal ? 128 + signal : WEXITSTATUS(status);
  const std::string& program = args[o.program_at];
  const Heard heard = parse_heard(summary);
  // Every end says one sentence (or the runtime's summary) and, under --json, one JSON object last.
  const auto finish = [&](const std::string& sentence, const std::string& ended, int exit_code) {
    if (!sentence.empty() && !(o.json && ended.empty())) std::cerr << "tcgen run: " << sentence << '\n';
    if (o.json) std::cerr << summary_json(heard, args.subspan(o.program_at), code, signal, ended) << '\n';
    return exit_code;
  };
  if (!heard.exec_failed.empty()) {
    std::cerr << "tcgen: " << Error("PROGRAM", program, "expected a program that can be started (" + heard.exec_failed + ")").what()
              << '\n';
    if (o.json) std::cerr << summary_json(heard, args.subspan(o.program_at), code, signal, "it could not be started") << '\n';
    return 2;
  }
  if (heard.static_runtime) {  // tcgen's libcuda ended it at its first call for NVIDIA's private tables
    // A library the program loaded, not the program: a Python package's module (CuPy's, docs/run.md).
    const std::string& in = heard.static_runtime_in;
    const bool library = !in.empty() && std::filesystem::path(in).filename() != std::filesystem::path(program).filename();
    return finish((library ? program + " loaded " + in + ", which" : program) +
                      " carries NVIDIA's CUDA runtime, linked statically (nvcc's default: it called the driver's "
                      "cuGetExportTable), so its CUDA calls cannot reach tcgen's: " +
                      (library ? "it cannot run under tcgen run (docs/run.md, Libraries that carry NVIDIA's runtime)"
                               : "rebuild it with -cudart shared"),
                  "linked with the static CUDA runtime", 2);
  }
  if (signal) std::cerr << "tcgen run: " << program << " was killed by signal " << signal << " (" << strsignal(signal) << ")\n";
  if (!heard.unemulated.empty()) {
    // The first few by name: bindings such as cuda-python look up every driver function there is.
    constexpr std::size_t kNamed = 12;
    std::string names;
    for (std::size_t n = 0; n < std::min(kNamed, heard.unemulated.size()); ++n)
      names += (names.empty() ? "" : ", ") + heard.unemulated[n];
    if (heard.unemulated.size() > kNamed)
      names += " and " + std::to_string(heard.unemulated.size() - kNamed) + " more (--json lists them all)";
    std::cerr << "tcgen run: " << program << " asked for " << heard.unemulated.size() << " function"
              << (heard.unemulated.size() == 1 ? "" : "s")
              << " tcgen does not emulate (a lookup gets a null pointer, a call error 801, not supported): " << names
              << '\n';
  }
  if (heard.loaded && heard.text.empty() && heard.json.empty())
    return finish(program + " ended (exit code " + std::to_string(code) +
                      ") without the CUDA runtime's exit: no summary (an abort, a crash or _exit)",
                  "an abort, a crash or _exit", code);
  if (!heard.loaded && heard.text.empty() && heard.json.empty() && code == 127)
    return finish("the dynamic loader stopped " + program +
                      " (exit 127): it calls a function tcgen's CUDA runtime does not emulate, named above (docs/run.md)",
                  "the dynamic loader stopped it", code);
  if (!heard.loaded && heard.text.empty() && heard.json.empty())
    // Exit 2, tcgen's refusal, whatever the program's own code: a 3 of its own would read as tcgen's "file" exit.
    return finish(program + " never loaded tcgen's CUDA runtime (it exited " + std::to_string(code) +
                      "): build it with -cudart shared (it was linked with the static one, or uses no CUDA)",
                  "it never loaded tcgen's CUDA runtime", 2);
  if (o.json) return finish("", "", code);
  if (!o.quiet) std::cerr << heard.text;
  return code;
}

}  // namespace

const std::span<const Option> run_options{kOptions};

int run_program(std::span<const std::string> args) {
  if (!args.empty() && wants_help(args.first(1))) {
    std::cout << kHelpHead << options_help(kOptions) << kHelpTail;
    return 0;
  }
  const RunOptions o = parse_run_options(args);
  guard_trace(o.trace, o.force, args.subspan(o.program_at));
  const std::filesystem::path lib = TCGEN_RUN_LIBDIR;
  if (!std::filesystem::exists(lib / "libcudart.so.13"))
    fail("tcgen's CUDA runtime", (lib / "libcudart.so.13").string(), "expected a built libcudart.so.13 (build target tcgen_cudart)");

  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) fail("pipe", std::strerror(errno), "expected a pipe for the runtime's summary");
  // Where CuTe DSL leaves the PTX of this run's kernels; removed when the program ends.
  char dump_template[] = "/tmp/tcgen-run-cute-dsl-XXXXXX";
  const std::string dump_dir = mkdtemp(dump_template) ? dump_template : "/tmp";
  const pid_t child = fork();
  if (child < 0) fail("fork", std::strerror(errno), "expected a child process for the program");
  if (child == 0) {
    close(pipe_fds[0]);
    export_run_environment(o, lib, dump_dir, pipe_fds[1]);
    std::vector<char*> argv;
    for (std::size_t j = o.program_at; j < args.size(); ++j) argv.push_back(const_cast<char*>(args[j].c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    const std::string why = std::string("exec_failed ") + std::strerror(errno) + "\n";
    if (write(pipe_fds[1], why.data(), why.size()) < 0) _exit(2);
    _exit(2);
  }
  close(pipe_fds[1]);
  std::string summary;
  char buf[4096];
  for (ssize_t n; (n = read(pipe_fds[0], buf, sizeof buf)) > 0;) summary.append(buf, static_cast<std::size_t>(n));
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (dump_dir != "/tmp") std::filesystem::remove_all(dump_dir);
  return report_run_end(o, args, summary, status);
}

}  // namespace tcgen::cli
