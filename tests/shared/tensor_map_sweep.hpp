#pragma once
// The rows of tools/tensormap_sweep's recordings (tests/data/tensormap_*_h200.csv[.zst], made on an
// H200: docs/tensor_map.md): each call's arguments, the driver's CUresult and the 128 bytes it
// wrote (encode_sweep.csv), or each tensormap.replace and the bytes it left (replace_probe.csv).
// Shared by the host test of tcgen's encoder and decoder (tests/host/test_tensor_map_nvidia.cpp) and
// the program that replays the sweep through a driver (tests/run/tensor_map_sweep.cpp). A file
// ending in .zst is decompressed with libzstd.
#include <zstd.h>

#include <array>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace tcgen::test_sweep {

// The file's text; throws naming the path where it cannot be read.
inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string raw{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (!in && !in.eof()) throw std::runtime_error(path + ": cannot be read");
  if (path.size() < 4 || path.compare(path.size() - 4, 4, ".zst") != 0) return raw;
  const unsigned long long size = ZSTD_getFrameContentSize(raw.data(), raw.size());
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN)
    throw std::runtime_error(path + ": not a ZSTD frame with its size");
  std::string text(size, '\0');
  const std::size_t n = ZSTD_decompress(text.data(), text.size(), raw.data(), raw.size());
  if (ZSTD_isError(n)) throw std::runtime_error(path + ": " + ZSTD_getErrorName(n));
  return text;
}

// The CSV's rows past its comment lines (#) and header, each split at commas.
inline std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(text);
  bool header = true;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      continue;
    }
    std::vector<std::string> cells(1);
    for (char c : line)
      if (c == ',')
        cells.emplace_back();
      else
        cells.back().push_back(c);
    rows.push_back(cells);
  }
  return rows;
}

template <std::size_t N, class T>
std::array<T, N> list(const std::string& cell) {  // "a:b:c", entries past the cell's zero
  std::array<T, N> v{};
  std::istringstream in(cell);
  std::string entry;
  for (std::size_t i = 0; i < N && std::getline(in, entry, ':'); ++i) v[i] = static_cast<T>(std::stoll(entry));
  return v;
}

inline std::array<std::uint8_t, 128> hex_bytes(const std::string& hex) {
  std::array<std::uint8_t, 128> b{};
  for (std::size_t i = 0; i < 128 && 2 * i + 1 < hex.size(); ++i)
    b[i] = static_cast<std::uint8_t>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
  return b;
}

// One call of encode_sweep.cpp.
struct EncodeRow {
  std::string function;  // tiled, im2col or im2col_wide
  std::string varied;    // the argument varied from the base case, or "random"
  int data_type;
  std::uint32_t rank;
  std::uint64_t address;
  std::array<std::uint64_t, 5> dims;
  std::array<std::uint64_t, 4> strides;
  std::array<std::uint32_t, 5> box, element_strides;
  int interleave, swizzle, l2, oob;
  std::array<int, 3> lower, upper;  // im2col corners (im2col_wide: entry 0, the width)
  std::uint32_t channels, pixels;
  int mode;    // CUtensorMapIm2ColWideMode
  int result;  // the driver's CUresult
  std::array<std::uint8_t, 128> bytes;  // where result is 0
  std::string line;                     // the row as recorded, for messages
};

inline std::vector<EncodeRow> encode_rows(const std::string& path) {
  std::vector<EncodeRow> rows;
  for (const std::vector<std::string>& c : csv_rows(read_text(path))) {
    if (c.size() != 21) throw std::runtime_error(path + ": a row of " + std::to_string(c.size()) + " cells, not 21");
    const auto number = [](const std::string& s) { return s.empty() ? 0ll : std::stoll(s, nullptr, 0); };
    EncodeRow r{c[0], c[1], static_cast<int>(number(c[2])), static_cast<std::uint32_t>(number(c[3])),
                std::stoull(c[4], nullptr, 16), list<5, std::uint64_t>(c[5]), list<4, std::uint64_t>(c[6]),
                list<5, std::uint32_t>(c[7]), list<5, std::uint32_t>(c[8]), static_cast<int>(number(c[9])),
                static_cast<int>(number(c[10])), static_cast<int>(number(c[11])), static_cast<int>(number(c[12])),
                list<3, int>(c[13]), list<3, int>(c[14]), static_cast<std::uint32_t>(number(c[15])),
                static_cast<std::uint32_t>(number(c[16])), static_cast<int>(number(c[17])),
                static_cast<int>(number(c[18])), hex_bytes(c[20]), ""};
    for (const std::string& cell : c) r.line += (r.line.empty() ? "" : ",") + cell;
    rows.push_back(r);
  }
  return rows;
}

// One tensormap.replace of replace_probe.cu (field "base": the map every case started from).
struct ReplaceRow {
  std::string field;
  int ord;
  std::uint64_t new_val;
  std::array<std::uint8_t, 128> bytes;
};

inline std::vector<ReplaceRow> replace_rows(const std::string& path) {
  std::vector<ReplaceRow> rows;
  for (const std::vector<std::string>& c : csv_rows(read_text(path))) {
    if (c.size() != 4) throw std::runtime_error(path + ": a row of " + std::to_string(c.size()) + " cells, not 4");
    rows.push_back({c[0], std::stoi(c[1]), std::stoull(c[2], nullptr, 16), hex_bytes(c[3])});
  }
  return rows;
}

}  // namespace tcgen::test_sweep
