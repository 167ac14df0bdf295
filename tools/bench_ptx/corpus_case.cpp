#include "corpus_case.hpp"

#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <vector>

#include "tcgen/core/error.hpp"

namespace tcgen::bench {

namespace {

constexpr const char* kPrograms[] = {"70_blackwell_fp16_gemm", "77_blackwell_fmha"};

struct Program {
  std::string name, arguments, pass;  // programs.txt's columns: NAME | SOURCE | ARGUMENTS | PASS | ci
};

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(' '), last = s.find_last_not_of(' ');
  return first == std::string::npos ? "" : s.substr(first, last - first + 1);
}

Program program_row(const std::string& list, const std::string& name) {
  std::ifstream in(list);
  if (!in) fail("corpus list", list, "tools/corpus/programs.txt of the source tree");
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    std::stringstream s(line);
    for (std::string cell; std::getline(s, cell, '|');) cells.push_back(trimmed(cell));
    if (cells.size() >= 4 && cells[0] == name) return {cells[0], cells[2], cells[3]};
  }
  fail("corpus program", name, "a row of " + list);
}

// What the shell gets: arguments as programs.txt writes them hold no quotes, and {corpus} is the
// folder of the programs' input files.
std::string command(const std::string& build, const std::string& corpus_folder, const Program& p) {
  const std::string arguments = std::regex_replace(p.arguments, std::regex("\\{corpus\\}"), corpus_folder);
  return "TCGEN_RUN_PROGRESS=0 '" + build + "/tools/tcgen/tcgen' run --profile -- '" + build + "/corpus/bin/" + p.name +
         "' " + arguments + " 2>&1";
}

struct Totals {
  double instructions = 0, seconds = 0;
};

// tcgen run's profile rows ("  NAME  launches CTAs thread-instr host-s instr/s"): the last five fields.
void add_profile_row(const std::string& line, Totals& t) {
  std::stringstream s(line);
  std::vector<std::string> fields;
  for (std::string f; s >> f;) fields.push_back(f);
  if (fields.size() < 6) return;
  try {
    t.instructions += std::stod(fields[fields.size() - 3]);
    t.seconds += std::stod(fields[fields.size() - 2]);
  } catch (const std::exception&) {  // the header, or a line that is not a row
  }
}

bool exists(const std::string& path) {
  struct stat st{};
  return stat(path.c_str(), &st) == 0;
}

}  // namespace

int run_corpus_case(const std::string& source_root, const std::string& build) {
  bool all = true;
  for (const char* name : kPrograms) {
    const Program p = program_row(source_root + "/tools/corpus/programs.txt", name);
    if (!exists(build + "/corpus/bin/" + p.name)) {
      std::printf("%s: not built: python3 tools/corpus.py --build %s %s\n", p.name.c_str(), build.c_str(), name);
      all = false;
      continue;
    }
    const auto start = std::chrono::steady_clock::now();
    FILE* out = popen(command(build, source_root + "/tools/corpus", p).c_str(), "r");
    if (!out) fail("popen", p.name, "a shell to run tcgen run in");
    std::string text;
    for (char chunk[4096]; std::fgets(chunk, sizeof chunk, out);) text += chunk;
    const int status = pclose(out);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    Totals t;
    bool in_table = false;
    std::stringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      if (line.find("tcgen run: profile, most host time first:") != std::string::npos) in_table = true;
      else if (in_table && line.rfind("  ", 0) == 0) add_profile_row(line, t);
      else in_table = false;
    }
    const bool passed = status == 0 && std::regex_search(text, std::regex(p.pass));
    all = all && passed;
    std::printf("%s %s: %s, %.1f s; kernels %.4g PTX thread-instructions in %.1f host s, %.3g/s\n", p.name.c_str(),
                p.arguments.c_str(), passed ? "passed" : "FAILED", wall, t.instructions, t.seconds,
                t.seconds > 0 ? t.instructions / t.seconds : 0.0);
  }
  return all ? 0 : 1;
}

}  // namespace tcgen::bench
