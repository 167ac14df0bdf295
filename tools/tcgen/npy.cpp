#include "npy.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <initializer_list>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "tcgen/core/element_type.hpp"
#include "output_file.hpp"
#include "tcgen/core/error.hpp"

namespace tcgen::cli {

namespace {

constexpr char kMagic[] = "\x93NUMPY";

// kind: what the caller reads, "a float32 or float16".
[[noreturn]] void bad(const std::string& path, const std::string& kind, const std::string& what) {
  fail("npy file", path, "expected " + kind + " .npy array: " + what);
}

std::size_t read_le(const std::string& bytes, std::size_t at, int n) {
  std::size_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
  return v;
}

// The dimensions of a shape tuple's text "2, 3" or "3," or "": each a decimal
// integer without sign, their product the element count; anything else names
// the dimension. Bounded so that the byte count cannot overflow.
std::vector<std::size_t> parse_shape(const std::string& path, const std::string& kind, const std::string& dims,
                                     std::size_t elem, std::size_t* count) {
  // NumPy itself makes no array of more than 64 dimensions (NPY_MAXDIMS in NumPy 2, 32 before), so a
  // longer tuple is no array it wrote; refusing it first also keeps the messages below, which quote
  // the tuple, from growing with its square.
  constexpr std::size_t kMaxDims = 64;
  const std::size_t last = dims.find_last_not_of(' ');
  const std::size_t n = static_cast<std::size_t>(std::count(dims.begin(), dims.end(), ',')) +
                        (last != std::string::npos && dims[last] != ',');  // "3," is one, "2, 3" two
  if (n > kMaxDims)
    bad(path, kind, "the shape has " + std::to_string(n) + " dimensions, more than " + std::to_string(kMaxDims) +
                        " (NumPy's own limit, NPY_MAXDIMS)");
  std::vector<std::size_t> shape;
  *count = 1;
  std::size_t at = 0;
  const auto skip_space = [&] {
    while (at < dims.size() && dims[at] == ' ') ++at;
  };
  for (skip_space(); at < dims.size(); skip_space()) {
    const std::size_t start = at;
    while (at < dims.size() && dims[at] >= '0' && dims[at] <= '9') ++at;
    const std::string digits = dims.substr(start, at - start);
    const std::string which = "dimension " + std::to_string(shape.size() + 1) + " of the shape (" + dims + ")";
    if (digits.empty())
      bad(path, kind, which + " is not a non-negative decimal integer (it starts with '" + dims.substr(start, 1) + "')");
    if (digits.size() > 15) bad(path, kind, which + " = " + digits + " is larger than any array this program reads");
    const std::size_t d = std::stoull(digits);
    if (d != 0 && *count > (std::size_t{1} << 48) / elem / d) bad(path, kind, "the shape (" + dims + ") holds more than 2^48 bytes");
    *count *= d;
    shape.push_back(d);
    skip_space();
    if (at < dims.size() && dims[at] != ',') bad(path, kind, "the shape (" + dims + ") is no tuple of integers");
    ++at;
  }
  return shape;
}

// Where the value of 'key' starts in the header dict, past the colon and any space; npos if the key is
// absent. A plain scan, not std::regex: libstdc++'s regex matcher recurses once per character matched,
// and a header of a few ten thousand characters (it may be up to 4 GiB in format 2) overflowed the stack.
std::size_t dict_value(const std::string& header, std::string_view key) {
  std::size_t at = header.find(key);
  if (at == std::string::npos) return at;
  at += key.size();
  while (at < header.size() && (header[at] == ' ' || header[at] == '\t' || header[at] == '\n')) ++at;
  return at;
}

// The text between `open` at `at` and the next `close`, or nullopt if the value is not so delimited.
std::optional<std::string> delimited(const std::string& header, std::size_t at, char open, char close) {
  if (at >= header.size() || header[at] != open) return std::nullopt;
  const std::size_t end = header.find(close, at + 1);
  if (end == std::string::npos) return std::nullopt;
  return header.substr(at + 1, end - at - 1);
}

}  // namespace

namespace {

// A file's header, read and checked, and its data bytes. `want` lists the
// dtypes the caller takes and `what` says so in the errors.
struct NpyFile {
  std::string descr;
  std::vector<std::size_t> shape;
  std::string bytes;        // the whole file
  std::size_t data_at = 0;  // where the array's data starts in it
  std::size_t data_size() const { return bytes.size() - data_at; }
  std::size_t read(std::size_t i, int n) const { return read_le(bytes, data_at + i * n, n); }
};

// A dtype the caller takes: its code and how the errors name it.
struct Dtype {
  std::string_view code, text;
};

NpyFile read_file(const std::string& path, std::initializer_list<Dtype> want, const std::string& what) {
  const auto bad_file = [&](const std::string& why) { bad(path, what, why); };
  check_input_file("npy file", path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("npy file", path, "expected a readable file");
  NpyFile f;
  f.bytes.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string& bytes = f.bytes;
  if (bytes.size() < 10 || bytes.compare(0, 6, kMagic, 6) != 0) bad_file("the file does not start with \\x93NUMPY");
  const int major = static_cast<unsigned char>(bytes[6]);
  if (major < 1 || major > 3) bad_file("format version " + std::to_string(major) + " is not 1, 2 or 3");
  const int len_bytes = major == 1 ? 2 : 4;  // v1 stores the header length in 2 bytes, v2+ in 4
  const std::size_t header_len = read_le(bytes, 8, len_bytes), data_at = 8 + len_bytes + header_len;
  if (data_at > bytes.size()) bad_file("the header runs past the end of the file");
  const std::string header = bytes.substr(8 + len_bytes, header_len);

  const auto descr = delimited(header, dict_value(header, "'descr':"), '\'', '\'');
  if (!descr) bad_file("the header has no 'descr'");
  f.descr = *descr;
  if (std::none_of(want.begin(), want.end(), [&](const Dtype& d) { return d.code == f.descr; })) {
    std::string list;
    for (std::size_t i = 0; i < want.size(); ++i) {
      const Dtype& d = want.begin()[i];
      list += std::string(i == 0 ? "" : i + 1 == want.size() ? " or " : ", ") + std::string(d.text) + " '" +
              std::string(d.code) + "'";
    }
    bad_file("dtype '" + f.descr + "' (" + list + " only)");
  }
  if (const std::size_t at = dict_value(header, "'fortran_order':");
      at != std::string::npos && header.compare(at, 4, "True") == 0)
    bad_file("Fortran order (save it C-contiguous)");
  const auto dims = delimited(header, dict_value(header, "'shape':"), '(', ')');
  if (!dims) bad_file("the header has no 'shape'");
  const std::size_t elem = std::stoul(f.descr.substr(2));
  std::size_t count = 1;
  f.shape = parse_shape(path, what, *dims, elem, &count);
  if (bytes.size() - data_at != count * elem)
    bad_file("shape needs " + std::to_string(count * elem) + " data bytes, the file has " + std::to_string(bytes.size() - data_at));
  f.data_at = data_at;
  return f;
}

}  // namespace

NpyArray read_npy(const std::string& path) {
  const NpyFile f = read_file(path, {{"<f4", "little-endian float32"}, {"<f2", "float16"}, {"<f8", "float64"}},
                              "a float32, float16 or float64");
  NpyArray a;
  const std::size_t elem = f.descr == "<f8" ? 8 : f.descr == "<f4" ? 4 : 2;
  a.shape = f.shape;
  a.float16 = elem == 2;
  a.float64 = elem == 8;
  a.values.resize(f.data_size() / elem);
  for (std::size_t i = 0; i < a.values.size(); ++i) {
    const std::uint64_t bits = f.read(i, static_cast<int>(elem));
    // float64 → float32 → bf16 or fp16, each to nearest even, equals rounding float64 to them at once:
    // double rounding is innocuous when the middle format has at least 2p + 2 bits (24 >= 2 · 11 + 2;
    // S. Figueroa, "When is double rounding innocuous?", SIGNUM Newsletter 30(3), 1995).
    a.values[i] = elem == 8   ? static_cast<float>(std::bit_cast<double>(bits))
                  : elem == 4 ? std::bit_cast<float>(static_cast<std::uint32_t>(bits))
                              : decode(ElementType::fp16, static_cast<std::uint32_t>(bits));
  }
  return a;
}

NpyInts read_npy_int32(const std::string& path) {
  const NpyFile f = read_file(path, {{"<i4", "little-endian int32"}, {"<i8", "int64"}}, "an int32 or int64");
  NpyInts a;
  const std::size_t elem = f.descr == "<i4" ? 4 : 8;
  a.shape = f.shape;
  a.values.resize(f.data_size() / elem);
  for (std::size_t i = 0; i < a.values.size(); ++i) {
    const std::uint64_t bits = f.read(i, static_cast<int>(elem));
    const std::int64_t v = elem == 4 ? std::int64_t(std::int32_t(std::uint32_t(bits))) : std::int64_t(bits);
    if (v < INT32_MIN || v > INT32_MAX)
      fail("npy file", path + " (element " + std::to_string(i) + " = " + std::to_string(v) + ")",
           "expected int64 values that fit in int32");
    a.values[i] = static_cast<std::int32_t>(v);
  }
  return a;
}

NpyBytes read_npy_uint8(const std::string& path) {
  const NpyFile f = read_file(path, {{"|u1", "uint8"}, {"<u1", "uint8"}}, "a uint8");
  return {f.shape, std::vector<std::uint8_t>(f.bytes.begin() + static_cast<std::ptrdiff_t>(f.data_at), f.bytes.end())};
}

std::string input_name(const std::string& path, const NpyArray& a) {
  return a.float64 ? path + " (float64, rounded)" : path;
}

std::string shape_text(const std::vector<std::size_t>& shape) {
  std::string t;
  for (std::size_t i = 0; i < shape.size(); ++i) t.append(i ? "x" : "").append(std::to_string(shape[i]));
  return shape.empty() ? std::string("scalar") : t;
}

namespace {

void write_data(std::string_view option, const std::string& path, const std::vector<std::size_t>& shape,
                const char* descr, std::string_view data) {
  std::string dims;  // as Python prints a tuple: (n,) or (a, b)
  for (std::size_t i = 0; i < shape.size(); ++i) dims += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) dims += ",";
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  // Version 1.0: magic, version, 2-byte length, header padded with spaces to a multiple of 64, ending in '\n'.
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string bytes(kMagic, 6);
  bytes += '\x01';
  bytes += '\x00';
  bytes += static_cast<char>(header.size() & 0xFF);
  bytes += static_cast<char>(header.size() >> 8);
  bytes += header;
  bytes += data;
  write_output(option, path, bytes);
}

}  // namespace

void write_npy(std::string_view option, const std::string& path, const std::vector<std::size_t>& shape,
               std::span<const float> values, bool float16) {
  if (!float16) {
    write_data(option, path, shape, "<f4", {reinterpret_cast<const char*>(values.data()), values.size_bytes()});
    return;
  }
  std::string data;
  for (const float v : values) {
    const std::uint32_t bits = encode(ElementType::fp16, v);
    if (!(decode(ElementType::fp16, bits) == v) && !std::isnan(v))
      throw std::logic_error("write_npy: " + std::to_string(v) + " is not an fp16 value");
    data += static_cast<char>(bits & 0xFF);
    data += static_cast<char>(bits >> 8);
  }
  write_data(option, path, shape, "<f2", data);
}

void write_npy(std::string_view option, const std::string& path, const std::vector<std::size_t>& shape,
               std::span<const std::int32_t> values) {
  write_data(option, path, shape, "<i4", {reinterpret_cast<const char*>(values.data()), values.size_bytes()});
}

void write_npy(std::string_view option, const std::string& path, const std::vector<std::size_t>& shape,
               std::span<const std::uint8_t> values) {
  write_data(option, path, shape, "|u1", {reinterpret_cast<const char*>(values.data()), values.size()});
}

}  // namespace tcgen::cli
