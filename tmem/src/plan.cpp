#include "tcgen/tmem/plan.hpp"

#include <string>

#include "tcgen/core/error.hpp"

namespace tcgen::tmem {

namespace {

const char* kind_name(RegionKind k) {
  switch (k) {
    case RegionKind::accumulator: return "accumulator";
    case RegionKind::operand: return "operand";
    case RegionKind::scratch: return "scratch";
  }
  return "?";
}

// "operand P0 (128x128 bf16), lane 0, alias of S0 + 32, columns [32, 96)"; the
// columns only once the rules that make them computable (hosts exist) hold.
std::string describe(std::span<const Region> rs, int i, bool placed) {
  const Region& r = rs[i];
  std::string s = std::string(kind_name(r.kind)) + " " + r.name.text + " (";
  if (r.kind == RegionKind::accumulator)
    s += "M=" + std::to_string(r.spec.m) + " N=" + std::to_string(r.spec.n) + " cta_group::" +
         std::to_string(r.spec.cta_group) + (r.spec.ws ? " .ws" : "");
  else
    s += std::to_string(r.rows) + "x" + std::to_string(r.kind == RegionKind::operand ? r.k : r.width);
  s += std::string(" ") + name(r.element) + "), lane " + std::to_string(r.lane);
  if (!r.host.empty()) s += std::string(", alias of ") + r.host.text + " + " + std::to_string(r.column);
  if (r.copies != 1) s += ", " + std::to_string(r.copies) + " copies";
  if (!placed) return s;
  const int first = start_column(rs, i);
  return s + ", columns [" + std::to_string(first) + ", " + std::to_string(first + region_columns(r)) + ")" +
         (r.copies != 1 ? " and every " + std::to_string(copy_stride(rs, i)) + " after" : "");
}

}  // namespace

void check_plan(std::span<const Region> regions) {
  const PlanCheck c = check(regions);
  if (c.rule == PlanRule::ok) return;
  fail((std::string(regions[c.region].name.text) + "." + rule_field(c.rule)).c_str(),
       describe(regions, c.region, c.rule > PlanRule::alias_host), rule_sentence(c.rule));
}

}  // namespace tcgen::tmem
