#pragma once
// Names kept in a type, for the compile-time plans (tmem::Plan's regions,
// tile::SmemPlan's entries): a name is a template argument, so a plan's
// lookup by name and its report of the item at fault happen at compile time.
#include <cstddef>
#include <span>

#include "tcgen/core/host_device.hpp"

namespace tcgen {

// At most 15 characters; a string literal converts to one.
struct FixedName {
  char text[16] = {};

  constexpr FixedName() = default;
  template <std::size_t N>
  constexpr TCGEN_HD FixedName(const char (&s)[N]) {  // implicit: a string literal names an item
    static_assert(N <= 16, "a name has at most 15 characters");
    for (std::size_t i = 0; i < N && i < 16; ++i) text[i] = s[i];
  }
  constexpr TCGEN_HD bool empty() const { return text[0] == '\0'; }
  friend constexpr bool operator==(const FixedName&, const FixedName&) = default;
};

// The index of the first item whose .name is `name`, or -1.
template <class Item>
constexpr int find_named(std::span<const Item> items, const FixedName& name) {
  for (std::size_t i = 0; i < items.size(); ++i)
    if (items[i].name == name) return static_cast<int>(i);
  return -1;
}

// Names the item at fault in a plan's verdict (any type with a .rule whose
// ok is no fault): the compiler prints the instantiation, blame<..., FixedName{"P0"}>,
// under the broken rule's own sentence.
template <auto Verdict, FixedName Name>
consteval bool blame() {
  if constexpr (Verdict.rule != decltype(Verdict.rule)::ok)
    static_assert(Name.text[0] != Name.text[0], "the item named in this blame<...> instantiation breaks the rule above");
  return true;
}

}  // namespace tcgen
