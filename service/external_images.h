// Image bytes that a Process call keeps outside its protobuf messages, so
// that the large ones are copied once instead of twice: the data of raw input
// images stays in gRPC's receive slices until the upload copies it into
// staging, and raw outputs stay in the memory the GPU downloaded into until
// gRPC has sent them (service/process_wire.h makes and reads these).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace rgfx::service {

// Bytes in pieces (gRPC's slices), in order.
struct SlicedBytes {
  std::vector<std::span<const std::byte>> pieces;
  uint64_t size = 0;

  void Append(std::span<const std::byte> piece) {
    if (piece.empty()) return;
    pieces.push_back(piece);
    size += piece.size();
  }
  // dst.size() must be size.
  void CopyTo(std::span<std::byte> dst) const;
};

struct ExternalImages {
  // Per input: when set, inputs(i).data() is empty and these are its bytes.
  std::vector<std::optional<SlicedBytes>> inputs;
  // The job leaves raw outputs where the GPU downloaded them:
  // outputs(i).data() stays empty and `held` has (i, bytes), alive as long as
  // `owner` is.
  std::vector<std::pair<int, std::span<const std::byte>>> held;
  std::shared_ptr<void> owner;
  // The request's size on the wire, for the metrics.
  uint64_t wire_bytes_in = 0;

  const SlicedBytes* input(size_t i) const {
    return i < inputs.size() && inputs[i].has_value() ? &*inputs[i] : nullptr;
  }
  uint64_t held_bytes() const {
    uint64_t total = 0;
    for (const auto& [index, bytes] : held) total += bytes.size();
    return total;
  }
};

}  // namespace rgfx::service
