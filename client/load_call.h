// The Process call of `rgfx load`, made cheap for the client: the load
// client shares the machine with the server it measures, so each CPU-ms it
// spends per call is taken from the server.
//
// - A request is serialized once, before the run (SerializeRequest); every
//   call sends that grpc::ByteBuffer, whose copies share its slices by
//   reference count, through a generic stub: no serialization per call.
// - The response arrives as a grpc::ByteBuffer and is read in place
//   (client/response_summary.h): its output images are never copied.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"
#include "client/response_summary.h"
#include "rgfx/v1/post_process.pb.h"

namespace rgfx::client {

// "/rgfx.v1.PostProcess/Process": the path the generated stub calls, built
// from the generated service descriptor.
const std::string& ProcessMethodPath();

// A ProcessRequest serialized once.
struct SerializedRequest {
  grpc::ByteBuffer message;  // copies share the slices
  uint64_t bytes = 0;        // = the request's ByteSizeLong()
};

// The bytes the generated stub would send for `request` (gRPC's own
// protobuf serialization). INVALID_ARGUMENT past protobuf's 2 GiB.
absl::StatusOr<SerializedRequest> SerializeRequest(const v1::ProcessRequest& request);

// Blocking Process calls over one channel. One per caller thread: it owns
// the completion queue its calls complete on.
class ProcessCaller {
 public:
  explicit ProcessCaller(std::shared_ptr<grpc::ChannelInterface> channel);
  ~ProcessCaller();
  ProcessCaller(const ProcessCaller&) = delete;
  ProcessCaller& operator=(const ProcessCaller&) = delete;

  // Sends `request` with `context` (deadline, metadata) and waits for the
  // answer: the RPC's status and, when OK, *summary. An OK answer that is not
  // a ProcessResponse becomes INTERNAL, as the generated stub reports it.
  grpc::Status Call(grpc::ClientContext* context, const SerializedRequest& request,
                    ResponseSummary* summary);

 private:
  grpc::GenericStub stub_;
  grpc::CompletionQueue queue_;
};

}  // namespace rgfx::client
