// tcgen ptx FILE.ptx: what the host model's PTX interpreter makes of a
// module: its kernels with their parameters, directives and size, and each
// instruction it cannot run, with its PTX line, CUDA source line and what
// is missing.
#include <cstdio>
#include <iostream>
#include <map>

#include "args.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/ptx/module.hpp"
#include "verbs.hpp"

namespace tcgen::cli {

namespace {

constexpr const char* kHelp = R"(usage: tcgen ptx FILE.ptx

Loads a PTX module as the host model's PTX interpreter does (nvcc -ptx
-lineinfo for sm_100a, PTX ISA 8.7 to 9.x) and lists each kernel (.entry):
its parameters (offset, size and alignment in the parameter buffer), its
directives, registers and instructions, and every instruction the
interpreter cannot run, with its PTX line, its CUDA source line and what is
missing. Exit 0: every kernel runs; 1: some instruction cannot; 2: a file
that is not PTX the interpreter reads (one sentence on stderr).

examples:
  nvcc -ptx -lineinfo -gencode arch=compute_100a,code=sm_100a kernel.cu -o kernel.ptx
  tcgen ptx kernel.ptx
)";

}  // namespace

int ptx_module(std::span<const std::string> args) {
  if (wants_help(args)) {
    std::cout << kHelp;
    return 0;
  }
  if (args.size() != 1 || args[0].rfind("--", 0) == 0)
    fail("FILE", args.empty() ? "(none)" : args[0], "one PTX file: tcgen ptx FILE.ptx");
  const ptx::Module m = ptx::Module::load(args[0]);
  std::printf("%s: PTX %s, target %s, %zu CUDA source file%s\n", m.name().c_str(), m.version().c_str(),
              m.target().c_str(), m.files().empty() ? 0 : m.files().size() - 1, m.files().size() == 2 ? "" : "s");
  std::size_t kernels = 0, missing = 0;
  for (const ptx::Function& f : m.functions()) {
    if (!f.entry) continue;
    ++kernels;
    std::printf("\nkernel %s\n  PTX name %s (line %u)\n", f.demangled.c_str(), f.name.c_str(), f.line);
    for (std::size_t i = 0; i < f.params.size(); ++i)
      std::printf("  param %zu: %s, %u bytes at offset %u, align %u\n", i, f.params[i].name.c_str(), f.params[i].bytes,
                  f.params[i].offset, f.params[i].align);
    for (const std::string& d : f.directives) std::printf("  directive %s\n", d.c_str());
    std::printf("  %zu instructions, %u register slots, %u bytes of local memory\n", f.code.size() - 1, f.registers,
                f.local_bytes);
    std::map<std::string, std::size_t> opcodes;
    for (const ptx::Unsupported& u : f.unsupported) ++opcodes[u.opcode];
    if (f.unsupported.empty()) {
      std::printf("  runs on the host model: every instruction is known\n");
      continue;
    }
    missing += f.unsupported.size();
    std::printf("  cannot run %zu instruction%s (%zu opcode%s):\n", f.unsupported.size(),
                f.unsupported.size() == 1 ? "" : "s", opcodes.size(), opcodes.size() == 1 ? "" : "s");
    for (const ptx::Unsupported& u : f.unsupported) {
      std::printf("    line %u: %s: %s\n", u.line, u.opcode.c_str(), u.missing.c_str());
      const std::string source = m.source_text(f, u.loc);
      if (!source.empty()) std::printf("      from %s\n", source.c_str());
    }
  }
  std::printf("\n%zu kernel%s, %zu instruction%s the interpreter cannot run\n", kernels, kernels == 1 ? "" : "s",
              missing, missing == 1 ? "" : "s");
  return missing == 0 ? 0 : 1;
}

}  // namespace tcgen::cli
