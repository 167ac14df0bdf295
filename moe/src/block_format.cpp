#include "tcgen/moe/block_format.hpp"

#include <string>

#include "tcgen/core/error.hpp"

namespace tcgen::moe {

namespace {

struct Named {
  const char* name;
  BlockFormat format;
};
constexpr Named kFormats[] = {{"mxfp8", kMxfp8}, {"mxfp4", kMxfp4}, {"nvfp4", kNvfp4}};

}  // namespace

const char* name(const BlockFormat& f) {
  for (const Named& n : kFormats)
    if (n.format == f) return n.name;
  return "?";
}

BlockFormat parse_block_format(std::string_view text) {
  std::string valid;  // listed from the table, so it cannot drift
  for (const Named& n : kFormats) {
    if (text == n.name) return n.format;
    valid += valid.empty() ? "one of " : ", ";
    valid += n.name;
  }
  fail("block format", std::string(text), valid);
}

}  // namespace tcgen::moe
