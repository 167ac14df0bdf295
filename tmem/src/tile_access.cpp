#include "tcgen/tmem/tile_access.hpp"

#include <string>

#include "tcgen/core/error.hpp"

namespace tcgen::tmem {

std::vector<RegisterElement> access_map(const layout::AccumulatorSpec& accumulator, ElementType d,
                                        const layout::TmemAccess& access) {
  (void)layout::make_accumulator_layout(accumulator);  // throws, naming the field, for an illegal shape
  const layout::Layout map = layout::make_thread_map(access);
  if (d != ElementType::f32 && d != ElementType::fp16 && d != ElementType::s32)
    fail("element", name(d), "an accumulator holds f32, f16 or s32 (PTX #tcgen05-instruction-descriptor, dtype)");
  const AccessPlan plan = plan_access(accumulator_view(accumulator, d), access);
  const std::string value = std::string(layout::name(access.shape)) + ".x" + std::to_string(access.num) +
                            (access.pack ? ".pack::16b" : "") + " on M=" + std::to_string(accumulator.m) +
                            " N=" + std::to_string(accumulator.n) + " (Layout " +
                            layout::name(layout::datapath_layout(accumulator)) + ")";
  if (plan.rule != TileAccessRule::ok) fail(rule_field(plan.rule), value, rule_sentence(plan.rule));
  std::vector<RegisterElement> out;
  const int halves = access.pack ? 2 : 1;
  for (int q = 0; q < 4; ++q)
    for (int s = 0; s < plan.accesses(); ++s)
      for (int t = 0; t < 32; ++t)
        for (int i = 0; i < plan.registers; ++i)
          for (int h = 0; h < halves; ++h) {
            const Int cell = (access.pack ? map(t, i, h) : map(t, i)) + plan.lane_offset(q, s) +
                             layout::kTmemLanes * plan.column_offset(s);
            const layout::TmemCell c = layout::tmem_cell(cell);
            out.push_back({q, s, t, i, h, static_cast<int>(c.lane), static_cast<int>(c.column),
                           plan.element(q, s, t, i, h)});
          }
  return out;
}

}  // namespace tcgen::tmem
