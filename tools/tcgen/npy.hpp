#pragma once
// NumPy .npy files (format version 1.0-3.0, https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html):
// float32, float16 or float64 arrays in (float32 or float16 out), int32 (int64 read too) and uint8
// arrays in and out, C order, little-endian.
// A file that is not such an array is an error naming the file and what is wrong.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tcgen::cli {

struct NpyArray {
  std::vector<std::size_t> shape;
  std::vector<float> values;  // row-major; float16 input converted exactly
  bool float16 = false;       // the file's dtype was float16 ('<f2')
  bool float64 = false;       // the file's dtype was float64 ('<f8', numpy's default), rounded to float32
};
// The file as a report names an input: "q.npy", or "q.npy (float64, rounded)".
std::string input_name(const std::string& path, const NpyArray& a);

NpyArray read_npy(const std::string& path);

struct NpyInts {
  std::vector<std::size_t> shape;
  std::vector<std::int32_t> values;  // '<i4', or '<i8' whose every value fits in int32
};
NpyInts read_npy_int32(const std::string& path);

struct NpyBytes {
  std::vector<std::size_t> shape;
  std::vector<std::uint8_t> values;  // '|u1'
};
NpyBytes read_npy_uint8(const std::string& path);
// "2x3x4" as the messages print a shape; "scalar" for none.
std::string shape_text(const std::vector<std::size_t>& shape);
// Written whole or not at all (output_file.hpp); `option` names it in errors.
// float16 = true writes '<f2': every value must be an fp16 value (the
// caller's data already is); one that is not is an internal error, never
// rounded silently.
void write_npy(std::string_view option, const std::string& path, const std::vector<std::size_t>& shape,
               std::span<const float> values, bool float16 = false);
// '<i4' and '|u1', the same way.
void write_npy(std::string_view option, const std::string& path, const std::vector<std::size_t>& shape,
               std::span<const std::int32_t> values);
void write_npy(std::string_view option, const std::string& path, const std::vector<std::size_t>& shape,
               std::span<const std::uint8_t> values);

}  // namespace tcgen::cli
