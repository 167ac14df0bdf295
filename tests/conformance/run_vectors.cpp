// Runs the PTX conformance table (tests/conformance/README.md) through the PTX interpreter
// (tcgen::ptx): one kernel per template, one thread per vector, every destination judged by the
// vector's check. A template whose instruction the interpreter does not take (Function::unsupported
// after parsing) is "refused": listed, not a disagreement (its vectors wait for the implementation).
// Coverage: every form the interpreter accepts in the value-computing families (opcode_table(),
// each spelled-out form with each operand count) must have a vector, so that a form added to
// opcodes.def cannot run unjudged; a vector's form is its template's first opcode with its operand
// count (or the instruction marked "* ", README.md).
//
//   run_vectors TABLE [--only OPCODE_PREFIX] [--examples N] [--no-coverage]
// Exit 0: no disagreement and every accepted form covered; 1: a disagreement, an accepted form
// without vectors, or a template that failed to parse or run; 2: usage.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ptx_kernel.hpp"
#include "tcgen/ptx/launch.hpp"
#include "tcgen/ptx/module.hpp"
#include "tcgen/ptx/opcode_table.hpp"
#include "vectors.hpp"

using namespace tcgen;
using namespace tcgen::conformance;

namespace {

struct Report {
  std::set<std::string> forms;                         // "opcode N" of every template's first instruction
  std::map<std::string, std::string> refused;          // opcode -> what the interpreter lacks
  int refused_templates = 0;
  std::map<std::string, std::vector<std::string>> bad;  // opcode -> disagreements, described
  std::map<std::string, int> bad_count;
  std::vector<std::string> errors;  // templates that failed to parse or run
  int templates = 0, vectors = 0;
};

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string describe(const Vector& v, const Kernel& k, const std::vector<std::uint64_t>& got) {
  std::string s = "  " + v.tmpl + "\n    in:";
  for (const auto& [n, x] : v.inputs) s += " " + n + "=" + hex(x);
  s += "\n    expected:";
  for (const auto& [n, x] : v.expected) s += " " + n + "=" + hex(x);
  s += "  got:";
  for (std::size_t i = 0; i < k.outputs.size(); ++i) {
    const int b = k.outputs[i].bits;
    s += " " + k.outputs[i].name + "=" + hex(b >= 64 ? got[i] : got[i] & ((1ull << b) - 1));
  }
  return s + "\n    check " + v.check + ", " + v.isa + " (table line " + std::to_string(v.line) + ")";
}

std::string form_of(const std::string& tmpl);

// Runs the vectors of one template (all with the same operands) and records what disagrees.
void run_template(const std::vector<const Vector*>& vs, Report& r) {
  const Vector& first = *vs.front();
  std::vector<std::string> inputs;
  for (const auto& [n, x] : first.inputs) inputs.push_back(n);
  const Kernel k = synthesize(first.tmpl, inputs, "sm_100a");
  const ptx::Module m = ptx::Module::parse(k.ptx, "conformance.ptx");
  const ptx::Function& f = m.entry("conformance");
  if (!f.unsupported.empty()) {
    for (const ptx::Unsupported& u : f.unsupported) r.refused[u.opcode] = u.missing;
    ++r.refused_templates;
    return;
  }
  const std::uint32_t n = static_cast<std::uint32_t>(vs.size());
  std::vector<std::uint64_t> in(static_cast<std::size_t>(n) * k.in_stride / 8), out(static_cast<std::size_t>(n) * k.out_stride / 8, ~0ull);
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < k.inputs.size(); ++j) {
      const auto it = std::find_if(vs[i]->inputs.begin(), vs[i]->inputs.end(), [&](auto& p) { return p.first == k.inputs[j].name; });
      in[i * k.in_stride / 8 + j] = it->second;
    }
  }
  const std::uint64_t in_ptr = reinterpret_cast<std::uint64_t>(in.data()), out_ptr = reinterpret_cast<std::uint64_t>(out.data());
  const ptx::Argument args[] = {ptx::argument(in_ptr), ptx::argument(out_ptr), ptx::argument(n)};
  const ptx::Allocation memory[] = {{in.data(), in.size() * 8, "in", false}, {out.data(), out.size() * 8, "out", true}};
  ptx::launch(m, f, {.grid = {(n + 127) / 128, 1, 1}, .block = {128, 1, 1}}, args, memory);
  const std::string form = form_of(first.tmpl);
  for (std::uint32_t i = 0; i < n; ++i) {
    std::vector<std::uint64_t> got(k.outputs.size());
    bool ok = true;
    for (std::size_t j = 0; j < k.outputs.size(); ++j) {
      got[j] = out[i * k.out_stride / 8 + j];
      const auto it = std::find_if(vs[i]->expected.begin(), vs[i]->expected.end(), [&](auto& p) { return p.first == k.outputs[j].name; });
      ok &= passes(vs[i]->check, it->second, got[j], k.outputs[j].bits);
    }
    ++r.vectors;
    if (!ok) {
      ++r.bad_count[form];
      r.bad[form].push_back(describe(*vs[i], k, got));
    }
  }
}

// The form of an instruction as opcodes.def counts it: "opcode N", a "d|p" pair two operands, a
// braced vector one.
std::string form_of(const std::string& tmpl) {
  const std::string insn = form_instruction(tmpl);
  const std::size_t space = insn.find(' ');
  std::size_t n = 0;
  if (space != std::string::npos) {  // a braced vector {%a, %b, ...} is one operand
    n = 1;
    int depth = 0;
    for (const char c : insn) {
      depth += c == '{' ? 1 : c == '}' ? -1 : 0;
      n += depth == 0 && (c == ',' || c == '|');
    }
  }
  return insn.substr(0, space) + " " + std::to_string(n);
}

// Every form the interpreter accepts in the families whose instructions compute a value from their
// operands alone (what a vector can judge), one operand count each: "setp.eq.b32 3-4" gives two.
std::set<std::string> accepted_forms(const std::string& only) {
  using F = ptx::Family;
  std::set<std::string> out;
  for (const ptx::OpcodeRow& row : ptx::opcode_table()) {
    if (row.family != F::arithmetic && row.family != F::special_function && row.family != F::logic &&
        row.family != F::comparison && row.family != F::conversion)
      continue;
    for (const std::string& form : ptx::expanded_forms(row)) {
      const std::size_t space = form.rfind(' ');
      const std::string op = form.substr(0, space), count = form.substr(space + 1);
      if (op.rfind(only, 0) != 0) continue;
      const std::size_t dash = count.find('-');
      const unsigned lo = std::stoul(count.substr(0, dash)), hi = dash == std::string::npos ? lo : std::stoul(count.substr(dash + 1));
      for (unsigned k = lo; k <= hi; ++k) out.insert(op + " " + std::to_string(k));
    }
  }
  return out;
}

// Coverage: the accepted forms without a vector; prints the counts and those forms.
std::size_t coverage(const Report& r, const std::string& only) {
  const std::set<std::string> accepted = accepted_forms(only);
  std::vector<std::string> missing;
  std::size_t covered = 0;
  for (const std::string& f : accepted) {
    if (r.forms.count(f)) ++covered;
    else missing.push_back(f);
  }
  std::printf("accepted forms (arithmetic, special_function, logic, comparison, conversion): %zu\n", accepted.size());
  std::printf("accepted forms with vectors: %zu\nforms without vectors: %zu\n", covered, missing.size());
  for (const std::string& f : missing) std::printf("  no vectors: %s\n", f.c_str());
  return missing.size();
}

int print(const Report& r, std::size_t examples) {
  std::printf("templates: %d\nforms in the table: %zu\nvectors run: %d\n", r.templates, r.forms.size(), r.vectors);
  std::printf("refused templates: %d, refused opcodes: %zu\n", r.refused_templates, r.refused.size());
  for (const auto& [op, why] : r.refused) std::printf("  %s: %s\n", op.c_str(), why.c_str());
  int total = 0;
  for (const auto& [op, c] : r.bad_count) total += c;
  std::printf("disagreements: %d in %zu forms\n", total, r.bad_count.size());
  for (const auto& [op, list] : r.bad) {
    std::printf("%s: %d disagree\n", op.c_str(), r.bad_count.at(op));
    for (std::size_t i = 0; i < std::min(examples, list.size()); ++i) std::printf("%s\n", list[i].c_str());
  }
  for (const std::string& e : r.errors) std::printf("error: %s\n", e.c_str());
  return total > 0 || !r.errors.empty() ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string table, only;
  std::size_t examples = 5;
  bool check_coverage = true;  // off for a partial table (fuzz.py's programs)
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!std::strcmp(argv[i], "--no-coverage")) check_coverage = false;
    else if (!std::strcmp(argv[i], "--examples") && i + 1 < argc) examples = std::stoul(argv[++i]);
    else if (table.empty()) table = argv[i];
    else return std::fprintf(stderr, "usage: run_vectors TABLE [--only OPCODE_PREFIX] [--examples N] [--no-coverage]\n"), 2;
  }
  if (table.empty()) return std::fprintf(stderr, "usage: run_vectors TABLE [--only OPCODE_PREFIX] [--examples N] [--no-coverage]\n"), 2;
  const std::vector<Vector> all = read_table(table);
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Vector*>> groups;
  for (const Vector& v : all) {
    if (!only.empty() && v.tmpl.rfind(only, 0) != 0) continue;
    if (!groups.count(v.tmpl)) order.push_back(v.tmpl);
    groups[v.tmpl].push_back(&v);
  }
  Report r;
  for (const std::string& t : order) {
    ++r.templates;
    r.forms.insert(form_of(t));
    try {
      run_template(groups[t], r);
    } catch (const std::exception& e) {
      r.errors.push_back(t + ": " + e.what());
    }
  }
  const int verdict = print(r, examples);
  return check_coverage && coverage(r, only) > 0 ? 1 : verdict;
}
