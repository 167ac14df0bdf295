// tcgen ptx FILE.ptx: what the host model's PTX interpreter makes of a
// module: its kernels with their parameters, directives and size, and each
// instruction it cannot run, with its PTX line, CUDA source line and what
// is missing.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "args.hpp"
#include "output_file.hpp"
#include "report.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/ptx/module.hpp"
#include "tcgen/ptx/opcode_table.hpp"
#if defined(TCGEN_RUN)
#include "embedded_ptx.hpp"
#endif
#include "verbs.hpp"

namespace tcgen::cli {

namespace {

constexpr const char* kHelp = R"(usage: tcgen ptx [--json] FILE.ptx|PROGRAM
       tcgen ptx [--json] --opcodes
       tcgen ptx [--json] --forms

Loads a PTX module as the host model's PTX interpreter does (nvcc -ptx
-lineinfo for sm_100a, PTX ISA 8.7 to 9.x) and lists each kernel (.entry):
its parameters (offset, size and alignment in the parameter buffer), its
directives, registers and instructions, and every instruction the
interpreter cannot run, with its PTX line, its CUDA source line and what is
missing. A target that cannot hold tcgen05 (not sm_100a, sm_103a, sm_110a,
sm_101a or their f families) is warned about. Exit 0: every kernel runs; 1: some
instruction cannot (or is invalid PTX); 2: a file that is not PTX the
interpreter reads: empty, binary (an ELF program or cubin), or over 1 GiB
(one sentence on stderr). With --json
the report is one JSON object on stdout with the same facts as fields: the
module, and a list of kernels with their parameters, directives and the
instructions the interpreter cannot run.

--opcodes prints the interpreter's instruction table instead: one line per
opcode it decodes (the leading parts of an instruction's name, the rest being
its modifiers), with its family and the fewest operands it takes.

--forms prints every form the interpreter runs: per row of that table, its
forms as patterns (.x a modifier, {.a|.b} at most one of them, (.a|.b)
exactly one, *{.a|.b} any of them in any order, then the operand count),
and how many opcodes they spell out. Any other form of an opcode is refused
when the module loads ("not modelled: ...", with the nearest form that is),
and a launch stops if a thread reaches it. With --json each row also lists
its forms spelled out, one opcode with its operand count each.

A program, shared library or object (an ELF file) is read for the
compute_100a PTX nvcc embedded in it (-gencode arch=compute_100a,
code=[sm_100a,compute_100a]), each module reported the same way: what tcgen
run could not execute, known in seconds before anything runs.

examples:
  nvcc -ptx -lineinfo -gencode arch=compute_100a,code=sm_100a kernel.cu -o kernel.ptx
  tcgen ptx kernel.ptx
  tcgen ptx ./app
  tcgen ptx --opcodes
  tcgen ptx --forms
)";

constexpr Option kOptions[] = {{"json"}, {"opcodes"}, {"forms"}};

// tcgen ptx --opcodes: the instruction table, a row a line (a list of objects with --json).
int print_opcode_table(bool json) {
  Report report(json);
  report.field("verb", "ptx");
  std::vector<Report> rows;
  for (const ptx::OpcodeRow& row : ptx::opcode_table()) {
    report.text("%-34.*s %-16.*s %u\n", static_cast<int>(row.name.size()), row.name.data(),
                static_cast<int>(name(row.family).size()), name(row.family).data(), ptx::fewest_operands(row));
    Report& fields = rows.emplace_back(true);
    fields.field("opcode", std::string(row.name));
    fields.field("family", std::string(name(row.family)));
    fields.field("fewest_operands", static_cast<std::int64_t>(ptx::fewest_operands(row)));
  }
  report.field("opcodes", rows);
  report.finish();
  return 0;
}

// tcgen ptx --forms: each row's forms as patterns, and the count of opcodes they spell out.
int print_forms(bool json) {
  Report report(json);
  report.field("verb", "ptx");
  std::vector<Report> rows;
  std::size_t patterns = 0, spelled = 0;
  for (const ptx::OpcodeRow& row : ptx::opcode_table()) {
    const std::vector<std::string> forms = ptx::form_patterns(row), each = ptx::expanded_forms(row);
    for (const std::string& f : forms) report.text("%s\n", f.c_str());
    patterns += forms.size();
    spelled += each.size();
    Report& fields = rows.emplace_back(true);
    fields.field("opcode", std::string(row.name));
    fields.field("family", std::string(name(row.family)));
    fields.field("patterns", forms);
    fields.field("forms", each);
  }
  report.text("%zu patterns over %zu opcodes, %zu forms spelled out (a pattern with *{...} counted once)\n", patterns,
              rows.size(), spelled);
  report.field("forms", rows);
  report.field("patterns_total", static_cast<std::int64_t>(patterns));
  report.field("forms_total", static_cast<std::int64_t>(spelled));
  report.finish();
  return 0;
}

// One module's facts: its text to `report`, its fields to `fields` (the report itself for a .ptx file,
// an item of its list for a program); its kernels and the instructions that cannot run are counted.
void describe(const ptx::Module& m, const Report& report, Report& fields, std::size_t& kernels, std::size_t& missing) {
  const std::size_t sources = m.files().empty() ? 0 : m.files().size() - 1, missing_before = missing;
  report.text("%s: PTX %s, target %s, %zu CUDA source file%s\n", m.name().c_str(), m.version().c_str(),
              m.target().c_str(), sources, sources == 1 ? "" : "s");
  fields.field("module", m.name());
  fields.field("ptx_version", m.version());
  fields.field("target", m.target());
  fields.field("cuda_source_files", static_cast<std::int64_t>(sources));
  // tcgen05 exists only on the arch-specific Blackwell targets (PTX #tcgen05-instructions, target ISA
  // notes); the interpreter runs any module as sm_100a, so another target is said, not refused.
  // sm_101a is CUDA 13's sm_110a; the f targets are the families that hold tcgen05.
  constexpr std::string_view kBlackwell[] = {"sm_100a", "sm_100f", "sm_101a", "sm_101f", "sm_103a",
                                             "sm_103f", "sm_110a", "sm_110f"};
  std::string target_warning;
  if (m.target().empty())
    target_warning = "no .target directive: PTX needs one (PTX #ptx-module-directives-target); the host model runs "
                     "it as sm_100a";
  else if (std::find(std::begin(kBlackwell), std::end(kBlackwell), m.target()) == std::end(kBlackwell))
    target_warning = "target " + m.target() +
                     " is not a tcgen05 target (sm_100a, sm_103a, sm_110a or their f families): ptxas refuses its "
                     "tcgen05 instructions, and a B200 runs none of its code unless it is compiled for one of them; "
                     "the host model runs it as sm_100a";
  if (!target_warning.empty()) report.text("warning: %s\n", target_warning.c_str());
  fields.field("target_warning", target_warning);
  std::vector<Report> kernel_list;
  for (const ptx::Function& f : m.functions()) {
    if (!f.entry) continue;
    ++kernels;
    Report& k = kernel_list.emplace_back(true);
    report.text("\nkernel %s\n  PTX name %s (line %u)\n", f.demangled.c_str(), f.name.c_str(), f.line);
    k.field("name", f.demangled);
    k.field("ptx_name", f.name);
    k.field("line", static_cast<std::int64_t>(f.line));
    std::vector<Report> params;
    for (std::size_t i = 0; i < f.params.size(); ++i) {
      report.text("  param %zu: %s, %u bytes at offset %u, align %u\n", i, f.params[i].name.c_str(), f.params[i].bytes,
                  f.params[i].offset, f.params[i].align);
      Report& q = params.emplace_back(true);
      q.field("name", f.params[i].name);
      q.field("bytes", static_cast<std::int64_t>(f.params[i].bytes));
      q.field("offset", static_cast<std::int64_t>(f.params[i].offset));
      q.field("align", static_cast<std::int64_t>(f.params[i].align));
    }
    k.field("params", params);
    for (const std::string& d : f.directives) report.text("  directive %s\n", d.c_str());
    k.field("directives", f.directives);
    report.text("  %zu instructions, %u register slots, %u bytes of local memory\n", f.code.size() - 1, f.registers,
                f.local_bytes);
    k.field("instructions", static_cast<std::int64_t>(f.code.size() - 1));
    k.field("register_slots", static_cast<std::int64_t>(f.registers));
    k.field("local_bytes", static_cast<std::int64_t>(f.local_bytes));
    std::map<std::string, std::size_t> opcodes;
    for (const ptx::Unsupported& u : f.unsupported) ++opcodes[u.opcode];
    std::vector<Report> cannot;
    if (f.unsupported.empty()) {
      report.text("  runs on the host model: every instruction is known\n");
    } else {
      missing += f.unsupported.size();
      report.text("  cannot run %zu instruction%s (%zu opcode%s):\n", f.unsupported.size(),
                  f.unsupported.size() == 1 ? "" : "s", opcodes.size(), opcodes.size() == 1 ? "" : "s");
    }
    for (const ptx::Unsupported& u : f.unsupported) {
      report.text("    line %u: %s: %s\n", u.line, u.opcode.c_str(), u.missing.c_str());
      const std::string source = m.source_text(f, u.loc);
      if (!source.empty()) report.text("      from %s\n", source.c_str());
      Report& c = cannot.emplace_back(true);
      c.field("line", static_cast<std::int64_t>(u.line));
      c.field("opcode", u.opcode);
      c.field("missing", u.missing);
      c.field("source", source);
    }
    k.field("runs", f.unsupported.empty());
    k.field("cannot_run", cannot);
  }
  fields.field("kernels", kernel_list);
  fields.field("instructions_it_cannot_run", static_cast<std::int64_t>(missing - missing_before));
}

}  // namespace

const std::span<const Option> ptx_options{kOptions};

int ptx_module(std::span<const std::string> args) {
  if (wants_help(args)) {
    std::cout << kHelp;
    return 0;
  }
  std::vector<std::string> files;
  bool json = false, opcodes = false, forms = false;
  for (const std::string& a : args) {
    if (a == "--json") json = true;
    else if (a == "--opcodes") opcodes = true;
    else if (a == "--forms") forms = true;
    else if (a.rfind("--", 0) == 0)
      fail("option", a, "expected --json, or the PTX file: tcgen ptx [--json] FILE.ptx, or --opcodes, or --forms");
    else files.push_back(a);
  }
  if (opcodes && forms) fail("option", "--forms", "expected one of --opcodes and --forms");
  if (forms) {
    if (!files.empty()) fail("FILE", files[0], "expected no file with --forms, which prints the forms the interpreter runs");
    return print_forms(json);
  }
  if (opcodes) {
    if (!files.empty()) fail("FILE", files[0], "expected no file with --opcodes, which prints the interpreter's instruction table");
    return print_opcode_table(json);
  }
  if (files.size() != 1)
    fail("FILE", files.empty() ? "(none)" : files[1], "expected one PTX file: tcgen ptx [--json] FILE.ptx");
  check_input_file("FILE", files[0]);
  std::vector<ptx::Module> modules;
  char magic[4] = {};
  std::ifstream(files[0], std::ios::binary).read(magic, 4);
  if (std::memcmp(magic, "\x7f" "ELF", 4) == 0) {
#if defined(TCGEN_RUN)
    modules = embedded_ptx(files[0]);
#else
    fail("FILE", files[0], "PTX text: this build has no fatbinary reader (libzstd and the CUDA toolkit) for a program");
#endif
  } else {
    modules.push_back(ptx::Module::load(files[0]));
  }
  Report report(json);
  report.field("verb", "ptx");
  std::size_t kernels = 0, missing = 0;
  if (modules.size() == 1) {
    describe(modules[0], report, report, kernels, missing);
  } else {
    report.text("%s: %zu compute_100a PTX modules\n\n", files[0].c_str(), modules.size());
    report.field("file", files[0]);
    std::vector<Report> list;
    for (const ptx::Module& m : modules) {
      describe(m, report, list.emplace_back(true), kernels, missing);
      report.text("\n");
    }
    report.field("modules", list);
  }
  report.text("\n%zu kernel%s, %zu instruction%s the interpreter cannot run\n", kernels, kernels == 1 ? "" : "s",
              missing, missing == 1 ? "" : "s");
  if (modules.size() != 1) report.field("instructions_it_cannot_run", static_cast<std::int64_t>(missing));
  report.finish();
  return missing == 0 ? 0 : 1;
}

}  // namespace tcgen::cli
