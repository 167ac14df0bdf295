// Prints the SM100 descriptor of the K-major SW128 bf16 tile of tcgen05-facts.md §1.
#include <cstdio>

#include "tcgen/mma/smem_descriptor.hpp"

int main() {
  using namespace tcgen::layout;
  const SmemOperand op = make_smem_operand({dense_element(16), Major::K, SmemSwizzle::b128, 128, 64});
  std::printf("desc=0x%016llx\n", static_cast<unsigned long long>(tcgen::mma::encode(tcgen::mma::descriptor_fields(op, 0x400))));
  return 0;
}
