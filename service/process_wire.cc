#include "service/process_wire.h"

#include <grpcpp/support/proto_buffer_reader.h>
#include <grpcpp/support/slice.h>

#include <string>
#include <vector>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/wire_format_lite.h"

namespace rgfx::service {
namespace {

using google::protobuf::internal::WireFormatLite;

// A slice that owns the string it points into; gRPC frees it when sent.
grpc::Slice SliceOwning(std::string bytes) {
  auto* owned = new std::string(std::move(bytes));
  return grpc::Slice(owned->data(), owned->size(),
                     [](void* p) { delete static_cast<std::string*>(p); }, owned);
}

// A length-delimited field's tag and length, appended to `out`.
void AppendFieldHead(std::string& out, int field, size_t length) {
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.WriteTag(WireFormatLite::MakeTag(field, WireFormatLite::WIRETYPE_LENGTH_DELIMITED));
  coded.WriteVarint64(length);
}

}  // namespace

absl::Status ParseProcessRequest(const grpc::ByteBuffer& bytes, v1::ProcessRequest& request) {
  grpc::ByteBuffer shared(bytes);  // the reader needs a mutable buffer; this shares the slices
  grpc::ProtoBufferReader reader(&shared);
  if (!reader.status().ok() || !request.ParseFromZeroCopyStream(&reader)) {
    return absl::InvalidArgumentError(
        "the request is not a valid rgfx.v1.ProcessRequest message (protobuf parse failed)");
  }
  return absl::OkStatus();
}

grpc::ByteBuffer SerializeSharingImages(v1::ProcessResponse& response) {
  // The images' bytes leave the response first, so nothing below copies them.
  std::vector<std::string> data;
  for (v1::Image& image : *response.mutable_outputs()) {
    data.push_back(std::move(*image.mutable_data()));
    image.clear_data();
  }
  // Everything but the outputs, serialized as usual (small)...
  google::protobuf::RepeatedPtrField<v1::Image> outputs;
  outputs.Swap(response.mutable_outputs());
  std::vector<grpc::Slice> slices;
  slices.push_back(SliceOwning(response.SerializeAsString()));
  // ...then each output: its field head and its fields but the data in one
  // small slice, and the data itself by reference.
  for (int i = 0; i < outputs.size(); ++i) {
    const std::string fields = outputs[i].SerializeAsString();
    std::string& bytes = data[static_cast<size_t>(i)];
    std::string data_head;
    if (!bytes.empty()) AppendFieldHead(data_head, v1::Image::kDataFieldNumber, bytes.size());
    std::string head;
    AppendFieldHead(head, v1::ProcessResponse::kOutputsFieldNumber,
                    fields.size() + data_head.size() + bytes.size());
    head += fields;
    head += data_head;
    slices.push_back(SliceOwning(std::move(head)));
    if (!bytes.empty()) slices.push_back(SliceOwning(std::move(bytes)));
  }
  outputs.Swap(response.mutable_outputs());
  return grpc::ByteBuffer(slices.data(), slices.size());
}

}  // namespace rgfx::service
