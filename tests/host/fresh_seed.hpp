#pragma once
// Fresh random inputs on every run of a test program: one seed drawn at
// first use, which the tests print (INFO / MESSAGE) so a failure can be
// repeated.
#include <cstdint>
#include <random>

inline std::uint32_t fresh_seed() {
  static const std::uint32_t seed = std::random_device{}();
  return seed;
}
