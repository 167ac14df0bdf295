#include "tcgen/core/host_memory.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

namespace tcgen {

namespace {

// The lowest memory limit of this process's cgroup and those above it (v2's memory.max along the path
// /proc/self/cgroup names, else v1's root limit), or 0 when there is none to read.
double cgroup_limit() {
  double lowest = 0;
  const auto take = [&](const std::string& file) {
    std::ifstream in(file);
    double limit = 0;
    if (in >> limit && limit > 0 && (lowest == 0 || limit < lowest)) lowest = limit;  // "max" does not parse
  };
  std::ifstream self("/proc/self/cgroup");
  for (std::string line; std::getline(self, line);)
    if (line.starts_with("0::")) {  // cgroup v2: "0::/path"
      for (std::string path = line.substr(3); !path.empty(); path.resize(path.find_last_of('/')))
        take("/sys/fs/cgroup" + path + "/memory.max");
    }
  take("/sys/fs/cgroup/memory.max");
  take("/sys/fs/cgroup/memory/memory.limit_in_bytes");
  return lowest;
}

}  // namespace

double host_memory_limit_bytes() {
  const double physical = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
  const double cgroup = cgroup_limit();
  return cgroup > 0 ? std::min(physical, cgroup) : physical;
}

}  // namespace tcgen
