// The descriptor is header-only constexpr code; this unit instantiates it once
// so that the library checks its own header compiles on its own.
#include "tcgen/mma/smem_descriptor.hpp"
