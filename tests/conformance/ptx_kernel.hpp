#pragma once
// One PTX kernel per conformance template (tests/conformance/README.md): thread i loads its sources
// from in + i * in_stride, runs the template's instruction(s), and stores its destinations at
// out + i * out_stride. Every operand has an 8-byte slot, little-endian, its value in the low bits
// (a predicate travels as a u32 0/1). Shared by run_vectors (the host interpreter) and the device
// twin (tests/device/ptx_conformance_sm90.cu), so both run the same PTX text apart from .target.
// Plain C++ (no tcgen headers), so nvcc can build it into the device program too.
#include <cstdint>
#include <string>
#include <vector>

namespace tcgen::conformance {

struct Operand {
  std::string name;  // the placeholder's name: %a:b32 -> "a"
  int bits = 32;     // 1 for .pred, else 8/16/32/64
};

struct Kernel {
  std::string ptx;                       // a module with one .entry "conformance"(in, out, n)
  std::vector<Operand> inputs, outputs;  // in slot order
  std::uint32_t in_stride = 0, out_stride = 0;  // bytes per thread
};

// The operands a template names, in order of appearance, and its instruction text without the
// placeholder types. Throws std::runtime_error on an unknown type.
std::vector<Operand> placeholders(const std::string& tmpl);
std::string instruction_text(const std::string& tmpl);

// The kernel for `tmpl` whose sources are `inputs` (the rest of its placeholders are destinations),
// for `target` ("sm_100a", "sm_90a").
Kernel synthesize(const std::string& tmpl, const std::vector<std::string>& inputs, const std::string& target);

}  // namespace tcgen::conformance
