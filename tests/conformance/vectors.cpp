#include "vectors.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace tcgen::conformance {
namespace {

std::string trim(const std::string& s) {
  const std::size_t a = s.find_first_not_of(' '), b = s.find_last_not_of(' ');
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

std::vector<std::string> split(const std::string& s, const std::string& sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = s.find(sep, start);
    out.push_back(trim(s.substr(start, at == std::string::npos ? std::string::npos : at - start)));
    if (at == std::string::npos) return out;
    start = at + sep.size();
  }
}

std::vector<std::pair<std::string, std::uint64_t>> values(const std::string& field) {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  std::istringstream in(field);
  for (std::string item; in >> item;) {
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) throw std::runtime_error("no '=' in " + item);
    out.emplace_back(item.substr(0, eq), std::stoull(item.substr(eq + 1), nullptr, 0));
  }
  return out;
}

int lane_bits(const std::string& lane) {
  static const std::map<std::string, int> bits = {{"f64", 64}, {"f32", 32}, {"tf32", 32}, {"f16", 16}, {"bf16", 16},
                                                  {"e4m3", 8}, {"e5m2", 8}, {"e2m3", 8}, {"e3m2", 8}, {"ue8m0", 8},
                                                  {"e2m1", 4}};
  const auto it = bits.find(lane);
  if (it == bits.end()) throw std::runtime_error("unknown lane type " + lane);
  return it->second;
}

// NaN encodings per lane type (IEEE: all-ones exponent, non-zero mantissa; the FP8 types' own).
bool is_nan(std::uint64_t v, const std::string& lane) {
  if (lane == "f64") return (v & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull;
  if (lane == "f32" || lane == "tf32") return (v & 0x7FFFFFFFu) > 0x7F800000u;
  if (lane == "f16") return (v & 0x7FFFu) > 0x7C00u;
  if (lane == "bf16") return (v & 0x7FFFu) > 0x7F80u;
  if (lane == "e4m3") return (v & 0x7Fu) == 0x7Fu;
  if (lane == "e5m2") return (v & 0x7Fu) > 0x7Cu;
  if (lane == "ue8m0") return v == 0xFFu;
  return false;  // e2m3, e3m2, e2m1 have no NaN
}

double to_double(std::uint64_t v, const std::string& lane) {
  if (lane == "f64") return std::bit_cast<double>(v);
  if (lane == "f32" || lane == "tf32") return std::bit_cast<float>(static_cast<std::uint32_t>(v));
  if (lane == "bf16") return std::bit_cast<float>(static_cast<std::uint32_t>(v << 16));
  if (lane == "f16") {
    const int e = static_cast<int>((v >> 10) & 0x1F), m = static_cast<int>(v & 0x3FF);
    const double mag = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(1024 + m, e - 25);
    return (v & 0x8000) ? -mag : mag;
  }
  throw std::runtime_error("no approx compare for lane type " + lane);
}

// BOUND: a decimal number or 2^E.
double bound_value(const std::string& s) { return s.rfind("2^", 0) == 0 ? std::exp2(std::stod(s.substr(2))) : std::stod(s); }

bool lane_passes(const std::vector<std::string>& parts, std::uint64_t e, std::uint64_t g) {
  const std::string& lane = parts[1];
  if (is_nan(e, lane)) return is_nan(g, lane);
  if (parts[0] == "nan" || e == g) return e == g;
  const double x = to_double(e, lane), y = to_double(g, lane);
  if (std::isinf(x) || std::isnan(y) || std::isinf(y)) return false;
  const std::size_t eq = parts[2].find('=');
  const std::string kind = parts[2].substr(0, eq);
  const double bound = bound_value(parts[2].substr(eq + 1)), err = std::fabs(x - y);
  if (kind == "abs") return err <= bound;
  if (kind == "rel") return err <= bound * std::fabs(x);
  if (kind == "ulp") {
    const double ulp = lane == "f64" ? std::nextafter(std::fabs(x), INFINITY) - std::fabs(x)
                                     : std::nextafterf(static_cast<float>(std::fabs(x)), INFINITY) - std::fabs(x);
    return err <= bound * ulp;
  }
  throw std::runtime_error("unknown approx kind " + kind);
}

}  // namespace

std::vector<Vector> read_table(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<Vector> out;
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> f = split(line, " | ");
    if (f.size() != 6) throw std::runtime_error(path + ":" + std::to_string(n) + ": expected 6 fields");
    out.push_back({f[0], values(f[1]), values(f[2]), f[3], std::stoi(f[4]), f[5], n});
  }
  return out;
}

std::vector<std::string> opcodes(const std::string& tmpl) {
  std::vector<std::string> out;
  for (std::string insn : split(tmpl, " ; ")) {
    if (insn.rfind("* ", 0) == 0) insn = insn.substr(2);  // the form marker (form_instruction)
    out.push_back(insn.substr(0, insn.find(' ')));
  }
  return out;
}

std::string form_instruction(const std::string& tmpl) {
  const std::vector<std::string> insns = split(tmpl, " ; ");
  for (const std::string& insn : insns) {
    if (insn.rfind("* ", 0) == 0) return insn.substr(2);
  }
  return insns.front();
}

bool passes(const std::string& check, std::uint64_t expected, std::uint64_t got, int bits) {
  const std::uint64_t all = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  expected &= all, got &= all;
  if (check == "exact") return expected == got;
  if (check.rfind("mask:", 0) == 0) {
    const std::uint64_t m = std::stoull(check.substr(5), nullptr, 16);
    return (expected & m) == (got & m);
  }
  const std::vector<std::string> parts = split(check, ":");
  const int w = lane_bits(parts[1]);
  if (parts[0] != "nan" && parts[0] != "approx") throw std::runtime_error("unknown check " + check);
  for (int at = 0; at < std::max(bits, w); at += w) {
    const std::uint64_t m = w >= 64 ? ~0ull : (1ull << w) - 1;
    if (!lane_passes(parts, (expected >> at) & m, (got >> at) & m)) return false;
  }
  return true;
}

}  // namespace tcgen::conformance
