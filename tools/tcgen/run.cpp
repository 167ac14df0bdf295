// tcgen run [--strict] [--seed N] [--threads N] [--quiet] -- PROGRAM ARGS...: an
// unmodified CUDA program on the host model. The program's dynamic loader
// finds tcgen's libcudart.so.13 first (LD_LIBRARY_PATH), which runs each
// kernel's compute_100a PTX with every rule checked; its exit code is the
// program's. The runtime's one-line summary comes back through a pipe, so a
// program that never loaded it (built with the static runtime) is named.
#include <sys/wait.h>
#include <unistd.h>

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
#include "report.hpp"
#include "tcgen/core/error.hpp"
#include "verbs.hpp"

namespace tcgen::cli {

namespace {

constexpr const char* kHelp = R"(usage: tcgen run [--strict] [--seed N] [--threads N] [--quiet] [--json] -- PROGRAM [ARGS...]

Runs PROGRAM, a CUDA program built for sm_100a, on the host model: every
kernel it launches runs as PTX through the model of tcgen05 with each
hardware rule checked; cudaMalloc'ed memory is host memory. Build it with

  nvcc -gencode arch=compute_100a,code=[sm_100a,compute_100a] -cudart shared ...

(the host model runs the compute_100a PTX; -cudart shared lets tcgen's
libcudart.so.13 stand in for NVIDIA's). A kernel fault prints the model's
report, and the program's later CUDA calls fail as after a fault on a GPU.
At exit one line sums up: kernels launched, PTX-letter warnings by rule.

  --strict     PTX-letter rules (docs/model.md) are errors, not counted warnings
  --seed N     schedule threads in a random order drawn from N (races show up)
  --threads N  OS threads running a launch's CTAs at once, 1 to 1024 (default:
               one per core); each cluster keeps its own schedule and seed, so
               the results are the same on any number unless CTAs meet through
               global memory (atomics, flags)
  --quiet      no summary line
  --json       the summary as one JSON object, the last line on stderr (stdout
               is the program's): verb, program, arguments, exit_code,
               kernel_launches, warnings {rule: count}, fault (the sticky
               error's name, or null), driver_only. A program that ends
               without the runtime's exit (an abort, _exit, the loader) has no
               summary: a sentence says so instead

Exit: the program's exit code (128 + N when signal N ended it); 2 for a bad
command line or a program that cannot be started, or one that never loaded
tcgen's runtime (it was linked with the static CUDA runtime).
)";

// Before "--" (parsed by hand: everything after it is the program's).
constexpr Option kOptions[] = {{"strict", false}, {"seed", true}, {"threads", true}, {"quiet", false}, {"json", false}};

// The runtime's "json KEY VALUE" lines (device.cpp) as one object with the
// program's name, arguments and exit code.
std::string summary_json(const std::string& lines, std::span<const std::string> program, int code) {
  Report r(true), warnings(true);
  r.field("verb", "run");
  r.field("program", program[0]);
  r.field("arguments", std::vector<std::string>(program.begin() + 1, program.end()));
  r.field("exit_code", code);
  std::string fault, driver_only = "false";
  std::int64_t launches = 0;
  std::istringstream in(lines);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string tag, key, value, count;
    words >> tag >> key >> value >> count;
    if (key == "kernel_launches") launches = std::stoll(value);
    if (key == "warning") warnings.field(value, static_cast<std::int64_t>(std::stoll(count)));
    if (key == "fault") fault = value;
    if (key == "driver_only") driver_only = value;
  }
  r.field("kernel_launches", launches);
  r.raw("warnings", warnings.object());
  if (fault.empty()) r.raw("fault", "null");
  else r.field("fault", fault);
  r.field("driver_only", driver_only == "true");
  return r.object();
}

}  // namespace

const std::span<const Option> run_options{kOptions};

int run_program(std::span<const std::string> args) {
  if (!args.empty() && wants_help(args.first(1))) {
    std::cout << kHelp;
    return 0;
  }
  bool strict = false, quiet = false, json = false;
  std::string seed, threads;
  std::size_t i = 0;
  for (; i < args.size() && args[i].rfind("--", 0) == 0; ++i) {
    if (args[i] == "--") {
      ++i;
      break;
    }
    if (args[i] == "--strict") strict = true;
    else if (args[i] == "--quiet") quiet = true;
    else if (args[i] == "--json") json = true;
    else if (args[i] == "--seed" && i + 1 < args.size())
      seed = std::to_string(parse_integer("seed", args[++i], 0, INT64_MAX));
    else if (args[i] == "--threads" && i + 1 < args.size())
      threads = std::to_string(parse_integer("threads", args[++i], 1, 1024));
    else
      fail("option", args[i], "expected --strict, --quiet, --json, --seed N, --threads N or -- before the program; see tcgen run --help");
  }
  if (i == args.size()) fail("PROGRAM", "(none)", "expected a program to run: tcgen run [options] -- PROGRAM [ARGS...]");
  const std::filesystem::path lib = TCGEN_RUN_LIBDIR;
  if (!std::filesystem::exists(lib / "libcudart.so.13"))
    fail("tcgen's CUDA runtime", (lib / "libcudart.so.13").string(), "expected a built libcudart.so.13 (build target tcgen_cudart)");

  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) fail("pipe", std::strerror(errno), "expected a pipe for the runtime's summary");
  const char* old = std::getenv("LD_LIBRARY_PATH");
  std::string path = lib.string();
  if (old && *old) path.append(":").append(old);
  const pid_t child = fork();
  if (child < 0) fail("fork", std::strerror(errno), "expected a child process for the program");
  if (child == 0) {
    close(pipe_fds[0]);
    setenv("LD_LIBRARY_PATH", path.c_str(), 1);
    setenv("TCGEN_RUN_FD", std::to_string(pipe_fds[1]).c_str(), 1);
    if (strict) setenv("TCGEN_RUN_STRICT", "1", 1);
    if (!seed.empty()) setenv("TCGEN_RUN_SEED", seed.c_str(), 1);
    if (!threads.empty()) setenv("TCGEN_RUN_THREADS", threads.c_str(), 1);
    if (json) setenv("TCGEN_RUN_JSON", "1", 1);
    std::vector<char*> argv;
    for (std::size_t j = i; j < args.size(); ++j) argv.push_back(const_cast<char*>(args[j].c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    std::cerr << "tcgen: PROGRAM = " << args[i] << " is invalid: expected a program that can be started (" << std::strerror(errno)
              << ")\n";
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
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (WIFSIGNALED(status)) std::cerr << "tcgen run: " << args[i] << " was killed by signal " << WTERMSIG(status) << " ("
                                     << strsignal(WTERMSIG(status)) << ")\n";
  // The runtime writes "loaded" when the program loads it, and its summary at exit.
  const bool loaded = summary.starts_with("loaded\n");
  if (loaded) summary.erase(0, 7);
  if (loaded && summary.empty()) {
    std::cerr << "tcgen run: " << args[i] << " ended (exit code " << code
              << ") without the CUDA runtime's exit: no summary (an abort, a crash or _exit)\n";
    return code;
  }
  if (summary.empty() && code == 127) {
    std::cerr << "tcgen run: the dynamic loader stopped " << args[i]
              << " (exit 127): it calls a function tcgen's CUDA runtime does not emulate, named above (docs/run.md)\n";
    return code;
  }
  if (summary.empty() && code != 2) {
    std::cerr << "tcgen run: " << args[i]
              << " never loaded tcgen's CUDA runtime: build it with -cudart shared (it was linked with the static "
                 "one, or uses no CUDA)\n";
    return code == 0 ? 2 : code;
  }
  if (json) {
    std::cerr << summary_json(summary, args.subspan(i), code) << '\n';
    return code;
  }
  if (!quiet) std::cerr << summary;
  return code;
}

}  // namespace tcgen::cli
