#pragma once
// A PTX module as nvcc 12.8–13.x emits it for sm_100a (`nvcc -ptx
// -lineinfo`, PTX ISA 8.7–9.x), loaded once and decoded into what the
// interpreter runs (instruction.hpp): its kernels (.entry) and functions,
// their parameters and directives, module variables, and the .file/.loc
// line table that maps each instruction to its CUDA source line and the
// chain of inlined calls it came through.
//
//   const ptx::Module m = ptx::Module::load("gemm.ptx");
//   const ptx::Function& k = m.entry("_Z4gemmPKfS0_Pf");
//
// Parsing and decoding errors are tcgen::Error naming the PTX line. An
// opcode the interpreter cannot run is not an error here: it is listed in
// Function::unsupported and stops a launch only when a thread reaches it.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include "tcgen/ptx/instruction.hpp"
#include "tcgen/ptx/types.hpp"

namespace tcgen::ptx {

// Where a function's call-site .param variables (a call's arguments and
// return value) lie in the param space, above any kernel's parameters.
inline constexpr std::uint64_t kCallParams = 1ull << 31;

struct Param {
  std::string name;
  Type type = Type::b8;
  std::uint32_t offset = 0, bytes = 0, align = 1;  // in the parameter buffer
};

// One .loc: CUDA file (an index of Module::files), line and column, the
// function it lies in (demangled, may be empty) and the .loc it was
// inlined at (an index of Function::locations, 0 for none).
struct Location {
  std::uint32_t file = 0, line = 0, column = 0;
  std::string function;
  std::uint32_t inlined_at = 0;
};

struct Unsupported {
  std::string opcode;
  std::uint32_t line = 0;
  std::string missing;  // what the interpreter lacks for it
  std::uint32_t loc = 0;  // its .loc, for the CUDA source line
};

struct Function {
  std::string name;       // as in the PTX (mangled)
  std::string demangled;  // the C++ name, or name where it is not mangled
  bool entry = false;
  std::vector<Param> params;
  std::uint32_t param_bytes = 0;
  std::vector<std::string> directives;  // ".maxntid 192", ".minnctapersm 1", ...
  std::uint32_t registers = 0;          // register slots, .pred included
  // Their names, for reports: a declaration's name (%r<N>: the prefix, ranged) and its slots.
  struct RegisterNames {
    std::string name;
    std::uint32_t first, count, slots;
    bool ranged;
  };
  std::vector<RegisterNames> register_names;
  std::uint32_t local_bytes = 0;        // its .local variables (the stack depot)
  std::uint32_t call_param_bytes = 0;   // the .param variables of its call sites, at kCallParams and up
  std::vector<Instruction> code;        // ends with an implicit exit
  std::vector<Location> locations;      // [0]: none
  std::vector<Unsupported> unsupported;
  std::uint32_t line = 0;               // where its .entry/.func stands
  // Its static shared memory (the module's .shared variables, then its own),
  // from the first byte above the reserved KiB, and where the dynamic shared
  // memory (.extern .shared) starts.
  std::uint32_t static_shared_bytes = 0, dynamic_shared_base = 0;
  // The register slot that holds the CTA's shared window, rank · 2^24 in a
  // cluster (exec::ClusterRuntime::cluster_address): an operand naming a
  // shared variable reads it plus the variable's offset. kNoReg: none named.
  std::uint32_t shared_window_slot = Operand::kNoReg;
};

struct Variable {
  std::string name;
  Space space = Space::global;
  std::uint32_t bytes = 0, align = 1;
  bool external = false;   // .extern .shared ...[]: the dynamic shared memory
  std::uint64_t address = 0;  // shared address, or host address of the module's storage
  int owner = -1;             // a function's own .shared: its index in Module::functions()
};

// A kernel's or function's demangled name made readable in a line: without its return type and
// parameters, template argument lists longer than 40 characters as <…> ("gemm_device<…>").
std::string brief_name(const std::string& demangled);

class Module {
 public:
  // Throws tcgen::Error naming the file and line.
  static Module load(const std::string& path);
  static Module parse(std::string_view text, std::string name);

  const std::string& name() const { return name_; }  // the file it came from, for reports
  const std::string& version() const { return version_; }
  const std::string& target() const { return target_; }
  const std::vector<Function>& functions() const { return functions_; }
  const std::vector<Variable>& variables() const { return variables_; }
  const std::vector<std::string>& files() const { return files_; }

  // The kernel named so (mangled, or demangled without the parameter list);
  // throws tcgen::Error listing the kernels there are.
  const Function& entry(std::string_view name) const;
  // The instantiation `Template<Type>` of a __global__ function template,
  // e.g. entry_instance("tcgen::gemm::gemm_kernel", typeid(G)).
  const Function& entry_instance(std::string_view function_template, const std::type_info& argument) const;

  // "kernel.hpp:150 in Gemm::mma, inlined at kernel.hpp:120 in Gemm::run, ..." for f.locations[loc].
  std::string source_text(const Function& f, std::uint32_t loc) const;
  // "/path/kernel.hpp:150": the CUDA file (as nvcc named it) and line of f.locations[loc] itself, the
  // innermost of the inlined calls, as a compiler's diagnostic names it; "" without a .loc.
  std::string source_position(const Function& f, std::uint32_t loc) const;
  // The module's .global/.const storage: [begin, end) of each variable.
  struct Storage {
    std::uint64_t begin, end;
    const std::string* name;
    bool writable;  // .global; .const is read-only
  };
  std::vector<Storage> storage() const;

 private:
  friend class Parser;
  std::string name_, version_, target_;
  std::vector<Function> functions_;
  std::vector<Variable> variables_;
  std::vector<std::string> files_;
  // .global/.const bytes: addresses stay put when moved. From calloc, whose large blocks are the
  // kernel's zero pages until written: a declared array costs memory only where it is used.
  struct FreeBytes {
    void operator()(std::uint8_t* p) const;
  };
  std::vector<std::unique_ptr<std::uint8_t, FreeBytes>> storage_;
};

// The C++ name of a mangled one (_Z…); the name itself when it is not one.
std::string demangle(const std::string& name);
// The C++ name of a type.
std::string demangle_type(const std::type_info& type);
// The name at the front of an Itanium-mangled name, nested or not: "_ZN7cutlass13device_kernelI..."
// as "cutlass::device_kernel<…>", "_Z11gemm_deviceI..." as "gemm_device<…>"; empty for another
// kind of name. A short name for those the demangler cannot read whole (CUTLASS's and CuTe's
// kernels of 1,000 characters and more; c++filt refuses them too); never a lookup key, as it
// drops the template arguments.
std::string leading_name(const std::string& mangled);

}  // namespace tcgen::ptx
