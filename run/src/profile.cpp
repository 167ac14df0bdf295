#include "profile.hpp"

#include <algorithm>
#include <cstdio>

#include "tcgen/core/json_string.hpp"
#include "tcgen/ptx/launch.hpp"
#include "tcgen/ptx/module.hpp"

namespace tcgen::run {

namespace {

std::string format(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

double rate(std::uint64_t instructions, double seconds) { return seconds > 0 ? double(instructions) / seconds : 0; }

// "dir/../x/gemm.cu:88" as "gemm.cu:88" for a table row; the JSON keeps the whole path.
std::string file_name(const std::string& source) {
  const std::size_t slash = source.rfind('/');
  return slash == std::string::npos ? source : source.substr(slash + 1);
}

// UTF-8: a byte that continues a character ("…" in "gemm<…>" is three bytes, one column).
bool continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }
std::size_t columns(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return !continuation(c); }));
}

// A PTX statement on one line of a table: each run of spaces and tabs as one space.
std::string one_spaced(const std::string& text) {
  std::string s;
  for (const char c : text) {
    const bool space = c == ' ' || c == '\t';
    if (!space) s += c;
    else if (!s.empty() && s.back() != ' ') s += ' ';
  }
  return s;
}

}  // namespace

void Profile::add(const std::string& kernel, const ptx::Module& module, const ptx::Function& entry,
                  const ptx::LaunchStats& stats, double seconds) {
  Kernel& k = live_[&entry];
  if (k.lines.empty()) {  // the first launch: what each instruction is, kept past the module's life
    k.name = kernel;
    k.module = &module;
    k.lines.resize(entry.code.size());
    for (std::size_t i = 0; i < entry.code.size(); ++i)
      k.lines[i] = {entry.code[i].line, module.source_position(entry, entry.code[i].loc), one_spaced(entry.code[i].text), 0};
  }
  ++k.launches;
  k.ctas += stats.ctas;
  k.instructions += stats.instructions;
  k.seconds += seconds;
  for (std::size_t i = 0; i < stats.executed.size() && i < k.lines.size(); ++i) k.lines[i].executed += stats.executed[i];
}

void Profile::retire(const ptx::Module& module) {
  for (auto it = live_.begin(); it != live_.end();) {
    if (it->second.module != &module) {
      ++it;
      continue;
    }
    retired_.push_back(std::move(it->second));
    retired_.back().module = nullptr;
    it = live_.erase(it);
  }
}

std::vector<const Profile::Kernel*> Profile::by_time() const {
  std::vector<const Kernel*> all;
  for (const auto& [entry, k] : live_) all.push_back(&k);
  for (const Kernel& k : retired_) all.push_back(&k);
  std::stable_sort(all.begin(), all.end(), [](const Kernel* a, const Kernel* b) { return a->seconds > b->seconds; });
  return all;
}

std::vector<const Profile::Line*> Profile::hottest(const Kernel& k) {
  std::vector<const Line*> lines;
  for (const Line& l : k.lines)
    if (l.executed) lines.push_back(&l);
  const std::size_t n = std::min(kHottest, lines.size());
  std::partial_sort(lines.begin(), lines.begin() + static_cast<std::ptrdiff_t>(n), lines.end(),
                    [](const Line* a, const Line* b) {
                      return a->executed != b->executed ? a->executed > b->executed : a->ptx_line < b->ptx_line;
                    });
  lines.resize(n);
  return lines;
}

std::string Profile::table() const {
  const std::vector<const Kernel*> kernels = by_time();
  if (kernels.empty()) return "tcgen run: profile: no kernel ran\n";
  // The name column as wide as the longest name, up to kNameWidth; a longer name ends in "…".
  constexpr std::size_t kNameWidth = 64;
  std::size_t width = 6;
  for (const Kernel* k : kernels) width = std::max(width, std::min(columns(k->name), kNameWidth));
  const auto cell = [&](const std::string& name) {
    if (columns(name) <= width) return name + std::string(width - columns(name), ' ');
    std::string cut;
    for (const char c : name) {  // whole UTF-8 characters, width - 1 of them
      if (!continuation(c) && columns(cut) == width - 1) break;
      cut += c;
    }
    return cut + "…";
  };
  std::string s = "tcgen run: profile, most host time first:\n";
  char row[512];
  std::snprintf(row, sizeof row, "  %s %9s %9s %15s %9s %11s\n", cell("kernel").c_str(), "launches", "CTAs",
                "thread-instr", "host s", "instr/s");
  s += row;
  for (const Kernel* k : kernels) {
    std::snprintf(row, sizeof row, "  %s %9llu %9llu %15llu %9.3f %11.3g\n", cell(k->name).c_str(),
                  static_cast<unsigned long long>(k->launches), static_cast<unsigned long long>(k->ctas),
                  static_cast<unsigned long long>(k->instructions), k->seconds, rate(k->instructions, k->seconds));
    s += row;
  }
  for (const Kernel* k : kernels) {
    s += "tcgen run: the PTX lines of " + k->name + " that executed most (thread-instructions):\n";
    for (const Line* l : hottest(*k)) {
      const double share = k->instructions ? 100.0 * double(l->executed) / double(k->instructions) : 0;
      s += "  " + format("%5.1f%%", share) + "  PTX line " + std::to_string(l->ptx_line) +
           (l->source.empty() ? "" : ", " + file_name(l->source)) + ": " + l->text + "\n";
    }
  }
  return s;
}

std::vector<std::string> Profile::json() const {
  std::vector<std::string> out;
  for (const Kernel* k : by_time()) {
    std::string s = "{\"kernel\": " + json_string(k->name) + ", \"launches\": " + std::to_string(k->launches) +
                    ", \"ctas\": " + std::to_string(k->ctas) + ", \"thread_instructions\": " +
                    std::to_string(k->instructions) + ", \"host_seconds\": " + format("%.6g", k->seconds) +
                    ", \"instructions_per_second\": " + format("%.6g", rate(k->instructions, k->seconds)) +
                    ", \"hottest\": [";
    bool first = true;
    for (const Line* l : hottest(*k)) {
      s += std::string(first ? "" : ", ") + "{\"ptx_line\": " + std::to_string(l->ptx_line) +
           ", \"source\": " + (l->source.empty() ? "null" : json_string(l->source)) +
           ", \"instruction\": " + json_string(l->text) + ", \"thread_instructions\": " + std::to_string(l->executed) + "}";
      first = false;
    }
    out.push_back(s + "]}");
  }
  return out;
}

std::string Profile::busiest() const {
  // By name: the instantiations of one template (BlockForEach<…> for A and for B) are one kernel to
  // the reader of this line, as they are one row's name in the table.
  std::map<std::string, double> by_name;
  double total = 0;
  for (const Kernel* k : by_time()) {
    by_name[k->name] += k->seconds;
    total += k->seconds;
  }
  if (total <= 0) return "";
  const auto top = std::max_element(by_name.begin(), by_name.end(),
                                    [](const auto& a, const auto& b) { return a.second < b.second; });
  return "most host time in " + top->first + " (" + format("%.0f%%", 100 * top->second / total) + " of the kernels')";
}

}  // namespace tcgen::run
