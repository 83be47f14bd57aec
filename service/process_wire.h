// Process's messages on the wire, handled by the service itself rather than
// by gRPC's generic protobuf (de)serialization: the method is registered raw
// (ByteBuffers in and out), so the large image bytes are copied once rather
// than twice each way:
//  - a request's raw input images stay in gRPC's receive slices (the upload
//    copies them from there into staging; protobuf would first have copied
//    them into the message);
//  - a response's images go to gRPC by reference: PNGs as the strings the
//    encoder made, raw outputs straight from the memory the GPU downloaded
//    into (gRPC's serializer would have copied them into a fresh buffer).
#pragma once

#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/slice.h>

#include <vector>

#include "absl/status/status.h"
#include "rgfx/v1/post_process.pb.h"
#include "service/external_images.h"

namespace rgfx::service {

// A Process request as parsed from the wire.
struct WireRequest {
  // inputs(i).data() is empty where external.inputs[i] is set.
  v1::ProcessRequest message;
  ExternalImages external;
  // What external.inputs' pieces point into.
  std::vector<grpc::Slice> slices;
};

// Parses a Process request (external.wire_bytes_in = its size, whether or
// not it parses). The data of inputs whose encoding is not PNG is
// left in the buffer's slices (external.inputs); PNG data is put in the
// message (the decoder reads it whole). Anything the fast reader does not
// expect (groups, field 0, a truncated field) is parsed by protobuf as a
// whole instead, so the result is always what protobuf would give. A
// message that is not a ProcessRequest is InvalidArgument (gRPC's own
// deserializer would have answered INTERNAL).
absl::Status ParseProcessRequest(const grpc::ByteBuffer& bytes, WireRequest& request);

// `request.message` with the external inputs' bytes put back as their data:
// the message protobuf would have parsed (copies the bytes; for checks).
v1::ProcessRequest RejoinedRequest(const WireRequest& request);

// The wire form of `response`: each output's bytes are its data moved into a
// slice without a copy, or, for outputs in `held`, the held bytes by
// reference (kept alive by held.owner until gRPC is done with them). The
// response keeps its outputs, without their data. Parsed by any protobuf
// library it is `response` with the held bytes as those outputs' data:
// fields may come in any order on the wire, and the outputs keep theirs.
grpc::ByteBuffer SerializeSharingImages(v1::ProcessResponse& response,
                                        const ExternalImages* held = nullptr);

// The size of what SerializeSharingImages returns, before calling it.
uint64_t WireSize(const v1::ProcessResponse& response, const ExternalImages* held);

}  // namespace rgfx::service
