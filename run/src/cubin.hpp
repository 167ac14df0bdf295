#pragma once
// A cubin's kernels, for the queries a program makes of machine code it loads without launching it
// (CuTe DSL's HardwareInfo loads one to ask cuOccupancyMaxActiveClusters): the host model runs PTX,
// so a cubin's kernels answer attribute and occupancy queries and refuse launches.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tcgen::run {

struct CubinKernel {
  std::string name;
  int registers = 0;               // ptxas's count
  std::uint32_t shared_bytes = 0;  // static shared memory: the size of its .nv.shared.<name> section
  std::uint32_t local_bytes = 0;   // its stack frame
  int max_threads = 1024;          // __launch_bounds__ / .maxntid, or .reqntid
};

// The entry kernels of a 64-bit little-endian CUDA ELF. A tcgen::Error names the field when the
// image is no such ELF or a table or section of it lies outside `elf`.
std::vector<CubinKernel> read_cubin(std::span<const std::uint8_t> elf);

// The bytes an ELF image spans, from its own header and section table (a module image comes as a
// pointer alone): the end of its table or of its furthest section. A tcgen::Error when the image at
// `image` (64 bytes of header, then the table where the header says) is no such ELF.
std::size_t cubin_extent(const std::uint8_t* image);

}  // namespace tcgen::run
