// Process's messages on the wire, handled by the service itself rather than
// by gRPC's generic protobuf (de)serialization: the method is registered raw
// (ByteBuffers in and out), so a response's images go to gRPC by reference
// instead of being copied into a serialization buffer first — one full copy
// of every output less per request (8.3 MB for a raw 1080p RGBA8 output).
#pragma once

#include <grpcpp/support/byte_buffer.h>

#include "absl/status/status.h"
#include "rgfx/v1/post_process.pb.h"

namespace rgfx::service {

// Parses a Process request. A message that is not a ProcessRequest is
// InvalidArgument (gRPC's own deserializer would have answered INTERNAL).
absl::Status ParseProcessRequest(const grpc::ByteBuffer& bytes, v1::ProcessRequest& request);

// The wire form of `response`, whose output images' bytes move into the
// buffer's slices without a copy (the response keeps its outputs, without
// their data).
// Parsed by any protobuf library it is `response` as it was: fields may come
// in any order on the wire, and the outputs keep theirs.
grpc::ByteBuffer SerializeSharingImages(v1::ProcessResponse& response);

}  // namespace rgfx::service
