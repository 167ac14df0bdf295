#include "tcgen/layout/smem_operand.hpp"

#include <string>

namespace tcgen::layout {

namespace {
std::string describe(const SmemOperandSpec& s, std::string_view field) {
  const auto atom = atom_extent(s);
  if (field == "rows") return std::to_string(s.rows) + " (atom M/N extent " + std::to_string(atom[0]) + ")";
  if (field == "cols")
    return std::to_string(s.cols) + " (atom K extent " + std::to_string(atom[1]) + ", MMA K step " +
           std::to_string(kstep_elements(s.element)) + ")";
  if (field == "swizzle") return std::string(name(s.swizzle)) + " with " + name(s.major) + "-major " +
                                 std::to_string(s.element.bits) + "-bit elements";
  return std::to_string(s.element.bits) + "-bit, " + std::to_string(s.element.per_chunk) + " per 16 B, " +
         name(s.major) + "-major";
}
}  // namespace

SmemOperand make_smem_operand(const SmemOperandSpec& spec) {
  const SmemRule rule = check(spec);
  if (rule != SmemRule::ok) fail(rule_field(rule), describe(spec, rule_field(rule)), rule_sentence(rule));
  return SmemOperand(spec);
}

}  // namespace tcgen::layout
