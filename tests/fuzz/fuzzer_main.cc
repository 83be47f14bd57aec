// libFuzzer's entry point for one target; RGFX_FUZZ_TARGET names it (one
// executable per target, built with -DRGFX_FUZZ=ON, see CMakeLists.txt).
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return rgfx::fuzz::RGFX_FUZZ_TARGET(data, size);
}
