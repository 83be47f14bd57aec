#include "client/load_call.h"

#include <climits>
#include <cstdio>
#include <cstdlib>

#include <google/protobuf/descriptor.h>
#include <grpcpp/impl/codegen/proto_utils.h>

#include "absl/strings/str_cat.h"
#include "rgfx/v1/post_process.grpc.pb.h"

namespace rgfx::client {

const std::string& ProcessMethodPath() {
  // The generated stub's path is "/" + service full name + "/" + method
  // name; both come from the descriptors generated with it, and the method
  // is checked to take and return what the load client sends and reads.
  static const std::string* const path = [] {
    const google::protobuf::ServiceDescriptor* service =
        google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
            v1::PostProcess::service_full_name());
    const google::protobuf::MethodDescriptor* method =
        service == nullptr ? nullptr : service->FindMethodByName("Process");
    if (method == nullptr || method->input_type() != v1::ProcessRequest::descriptor() ||
        method->output_type() != v1::ProcessResponse::descriptor() ||
        method->client_streaming() || method->server_streaming()) {
      std::fprintf(stderr, "rgfx: the generated PostProcess service has no unary Process\n");
      std::abort();  // the build is inconsistent: nothing to recover
    }
    return new std::string(absl::StrCat("/", service->full_name(), "/", method->name()));
  }();
  return *path;
}

absl::StatusOr<SerializedRequest> SerializeRequest(const v1::ProcessRequest& request) {
  SerializedRequest out;
  out.bytes = request.ByteSizeLong();
  if (out.bytes > static_cast<uint64_t>(INT_MAX)) {
    return absl::InvalidArgumentError(
        absl::StrCat("a request of ", out.bytes, " bytes: protobuf's limit is 2 GiB"));
  }
  // gRPC's own serialization, as the generated stub does it per call.
  bool own_buffer = false;
  const grpc::Status status =
      grpc::SerializationTraits<v1::ProcessRequest>::Serialize(request, &out.message, &own_buffer);
  if (!status.ok()) return absl::InternalError(status.error_message());
  return out;
}

ProcessCaller::ProcessCaller(std::shared_ptr<grpc::ChannelInterface> channel)
    : stub_(std::move(channel)) {}

ProcessCaller::~ProcessCaller() {
  queue_.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (queue_.Next(&tag, &ok)) {
  }
}

grpc::Status ProcessCaller::Call(grpc::ClientContext* context, const SerializedRequest& request,
                                 ResponseSummary* summary) {
  grpc::ByteBuffer response;
  grpc::Status status;
  // The request's ByteBuffer is copied by reference: no bytes move here.
  std::unique_ptr<grpc::ClientAsyncResponseReader<grpc::ByteBuffer>> call =
      stub_.PrepareUnaryCall(context, ProcessMethodPath(), request.message, &queue_);
  call->StartCall();
  call->Finish(&response, &status, this);
  void* tag = nullptr;
  bool ok = false;
  // One call at a time on this queue, and only the destructor shuts it
  // down: the next event is this call's end, which always comes (at the
  // latest at the deadline).
  if (!queue_.Next(&tag, &ok)) {
    return grpc::Status(grpc::StatusCode::INTERNAL, "load client: completion queue shut down");
  }
  if (!status.ok()) return status;
  if (!response.Valid()) {
    // What the generated stub answers for an OK status without a message.
    return grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "No message returned for unary request");
  }
  absl::StatusOr<ResponseSummary> parsed = SummarizeResponse(response);
  if (!parsed.ok()) {
    return grpc::Status(grpc::StatusCode::INTERNAL, std::string(parsed.status().message()));
  }
  *summary = *std::move(parsed);
  return status;
}

}  // namespace rgfx::client
