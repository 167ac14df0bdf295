#include <string>

#include "tcgen/layout/tmem_thread_map.hpp"

namespace tcgen::layout {

Layout make_accumulator_layout(const AccumulatorSpec& s) {
  const std::string value = "M=" + std::to_string(s.m) + " N=" + std::to_string(s.n) + " cta_group=" +
                            std::to_string(s.cta_group) + (s.ws ? " .ws" : "");
  switch (check(s)) {
    case AccumulatorRule::ok: return accumulator_layout(s);
#define TCGEN_X(code, field, sentence) \
  case AccumulatorRule::code: fail(field, value, sentence);
      TCGEN_ACCUMULATOR_RULES(TCGEN_X)
#undef TCGEN_X
  }
  fail("accumulator", value, "expected a known rule");
}

Layout make_thread_map(const TmemAccess& a) {
  const std::string value = std::string(name(a.shape)) + ".x" + std::to_string(a.num) + (a.pack ? " packed" : "") +
                            (a.half_split ? " split " + std::to_string(a.half_split) : "");
  switch (check(a)) {
    case TmemAccessRule::ok: return thread_map(a);
#define TCGEN_X(code, field, sentence) \
  case TmemAccessRule::code: fail(field, value, sentence);
      TCGEN_TMEM_ACCESS_RULES(TCGEN_X)
#undef TCGEN_X
  }
  fail("access", value, "expected a known rule");
}

}  // namespace tcgen::layout
