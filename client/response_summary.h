// What `rgfx load` keeps of a ProcessResponse: everything but the output
// images. A response carries 0.8-8.3 MB of image bytes that the load client
// never looks at; parsing them into a v1::ProcessResponse would copy them
// out of gRPC's receive buffers on every call, on the same CPU cores the
// server is measured on. So the serialized response is walked field by
// field in place: the outputs field is skipped (only its size is counted),
// and every other field (id, passes, stages, stats, error, ...) is copied
// into a small buffer and parsed as a ProcessResponse as usual.
#pragma once

#include <cstdint>

#include <grpcpp/support/byte_buffer.h>

#include "absl/status/statusor.h"
#include "rgfx/v1/post_process.pb.h"

namespace rgfx::client {

struct ResponseSummary {
  // The response without its outputs (outputs_size() == 0); every other
  // field as the full parse would have given it.
  v1::ProcessResponse rest;
  uint64_t message_bytes = 0;  // the whole serialized response
  int outputs = 0;             // output images skipped
  // Wire bytes of the skipped outputs field (tags and lengths included), so
  // message_bytes = output_bytes + rest's serialized size.
  uint64_t output_bytes = 0;
};

// Parses a serialized ProcessResponse, spread over any number of slices,
// without copying its output images. INVALID_ARGUMENT naming the byte
// offset for a buffer that is not a ProcessResponse (truncated, a bad tag or
// length, a wire type proto3 does not write). The contents of the outputs
// are not checked (they are never parsed). `message` is only read (the
// slice reader gRPC provides takes a non-const pointer).
absl::StatusOr<ResponseSummary> SummarizeResponse(grpc::ByteBuffer& message);

}  // namespace rgfx::client
