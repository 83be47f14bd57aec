#include "service/external_images.h"

#include <cstring>

namespace rgfx::service {

void SlicedBytes::CopyTo(std::span<std::byte> dst) const {
  std::byte* out = dst.data();
  for (std::span<const std::byte> piece : pieces) {
    std::memcpy(out, piece.data(), piece.size());
    out += piece.size();
  }
}

}  // namespace rgfx::service
