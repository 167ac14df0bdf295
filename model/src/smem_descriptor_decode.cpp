#include "tcgen/model/smem_descriptor_decode.hpp"

#include <array>
#include <string>

#include "tcgen/core/bitfield.hpp"
#include "tcgen/core/error.hpp"

namespace tcgen::model {

namespace {

// PTX #tcgen05-shared-memory-descriptor, Table 40. Addresses and strides are
// "matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4": 16-byte units.
constexpr BitField start_address{"start_address", 0, 14};
constexpr BitField lbo{"lbo", 16, 14};
constexpr BitField sbo{"sbo", 32, 14};
constexpr BitField version{"version", 46, 3};  // "Fixed constant value of 0b001"
constexpr BitField base_offset{"base_offset", 49, 3};
constexpr BitField lbo_mode{"lbo_mode", 52, 1};  // 1 = absolute LBO, sm_103a only
constexpr BitField layout_type{"layout_type", 61, 3};
constexpr std::array reserved{BitField{"reserved bits 14-15", 14, 2}, BitField{"reserved bits 30-31", 30, 2},
                              BitField{"reserved bits 53-60", 53, 8}};  // 53-60: "Fixed constant value of 0"

constexpr const char* kSection = " (PTX #tcgen05-shared-memory-descriptor)";

[[noreturn]] void refuse(const BitField& f, std::uint64_t value, const std::string& why) {
  fail(f.name, std::to_string(value), why + kSection);
}

}  // namespace

SmemDescriptorFields decode_smem_descriptor(std::uint64_t desc) {
  for (const BitField& r : reserved)
    if (r.extract(desc) != 0) refuse(r, r.extract(desc), "expected 0: reserved");
  if (version.extract(desc) != 1)
    refuse(version, version.extract(desc),
           "expected 1: bits 46-48 are the fixed constant 0b001 of the SM100 descriptor; without bit 46 this is "
           "the SM90 wgmma form");
  if (lbo_mode.extract(desc) != 0)
    refuse(lbo_mode, 1, "expected 0: the absolute leading-dimension mode (bit 52) is sm_103a only; sm_100a reads a "
                        "relative LBO");
  const int code = static_cast<int>(layout_type.extract(desc));
  if (code == 3 || code == 5 || code == 7)
    refuse(layout_type, code, "expected 0 none, 1 128B_base32B, 2 128B, 4 64B or 6 32B: \"Values 3, 5 and 7 are invalid\"");
  const int phase = static_cast<int>(base_offset.extract(desc));
  // "This is valid for all swizzling modes except the no-swizzle mode": a
  // phase given for an unswizzled operand means the writer expected a swizzle.
  if (phase != 0 && code == 0)
    refuse(base_offset, phase, "expected 0 with no swizzle: the base offset is not valid in the no-swizzle mode");
  SmemDescriptorFields f;
  f.start_address = static_cast<std::uint32_t>(start_address.extract(desc) << 4);
  f.lbo = static_cast<std::uint32_t>(lbo.extract(desc) << 4);
  f.sbo = static_cast<std::uint32_t>(sbo.extract(desc) << 4);
  f.base_offset = phase;
  f.layout_type = code;
  return f;
}

}  // namespace tcgen::model
