// An embedded SPIR-V compute shader and the interface it expects: how many
// storage buffers (bindings 0..N-1 of set 0, bound with push descriptors) and
// how many bytes of push constants. The dispatch site checks both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace rgfx::gpu {

struct ShaderCode {
  std::string_view name;
  std::span<const uint32_t> spirv;
  uint32_t num_buffers = 0;
  uint32_t push_constant_bytes = 0;
};

// Specialization constant values, constant_id i = values[i].
struct SpecConstants {
  std::vector<uint32_t> values;
  bool operator==(const SpecConstants&) const = default;
};

}  // namespace rgfx::gpu
