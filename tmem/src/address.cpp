#include "tcgen/tmem/address.hpp"

#include <cstdio>

namespace tcgen::tmem {

std::string to_string(TmemAddress a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "lane %u, column %u (0x%08x)", a.lane(), a.column(), a.raw());
  return buf;
}

}  // namespace tcgen::tmem
