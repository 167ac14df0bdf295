#pragma once
// Where a module's shared variables live in each kernel's shared memory
// (PTX #state-spaces-shared), decided once the whole module is read, and the
// operands that name them, read before that, resolved then.
#include <cstddef>
#include <span>
#include <vector>

#include "tcgen/ptx/module.hpp"

namespace tcgen::ptx {

// An operand naming a shared variable: in.ops[op], or in.elements[op - 1000] for a vector's element.
struct SharedUse {
  std::size_t function, instr, op, variable;  // variable: its index in the module's variables
};

// Each kernel's shared memory from the reserved KiB up: the module's .shared variables (the same
// addresses in every kernel), then its own; its dynamic shared memory follows them. Each use's
// operand becomes [the CTA's shared window + the variable's address].
void lay_out_shared_memory(std::vector<Variable>& variables, std::vector<Function>& functions,
                           std::span<const SharedUse> uses);

}  // namespace tcgen::ptx
