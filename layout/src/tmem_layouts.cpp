#include <string>

#include "tcgen/layout/tmem_thread_map.hpp"

namespace tcgen::layout {

Layout make_accumulator_layout(const AccumulatorSpec& s) {
  const std::string value = "M=" + std::to_string(s.m) + " N=" + std::to_string(s.n) + " cta_group=" +
                            std::to_string(s.cta_group) + (s.ws ? " .ws" : "");
  const AccumulatorRule rule = check(s);
  if (rule != AccumulatorRule::ok) fail(rule_field(rule), value, rule_sentence(rule));
  return accumulator_layout(s);
}

Layout make_thread_map(const TmemAccess& a) {
  const std::string value = std::string(name(a.shape)) + ".x" + std::to_string(a.num) + (a.pack ? " packed" : "") +
                            (a.half_split ? " split " + std::to_string(a.half_split) : "");
  const TmemAccessRule rule = check(a);
  if (rule != TmemAccessRule::ok) fail(rule_field(rule), value, rule_sentence(rule));
  return thread_map(a);
}

}  // namespace tcgen::layout
