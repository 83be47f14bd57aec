#include "service/process_wire.h"

#include <grpcpp/support/proto_buffer_reader.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/wire_format_lite.h"

namespace rgfx::service {
namespace {

using google::protobuf::io::CodedOutputStream;
using google::protobuf::internal::WireFormatLite;

constexpr uint64_t LengthDelimitedTag(int field) {
  return (static_cast<uint64_t>(field) << 3) | WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
}

// Reads a message laid out over gRPC slices without copying it whole.
class SliceReader {
 public:
  explicit SliceReader(const std::vector<grpc::Slice>& slices) : slices_(slices) { Settle(); }

  bool at_end() const { return index_ == slices_.size(); }
  uint64_t position() const { return position_; }

  // A varint of at most `max_bytes` bytes; its bytes are appended to `raw`.
  bool ReadVarint(uint64_t& value, std::string& raw, int max_bytes = 10) {
    value = 0;
    for (int i = 0; i < max_bytes; ++i) {
      if (at_end()) return false;
      const uint8_t byte = slices_[index_].begin()[offset_];
      Advance(1);
      raw.push_back(static_cast<char>(byte));
      value |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  }
  // The next n bytes as pieces of the slices, appended to `out`; false when
  // fewer than n are left.
  bool Take(uint64_t n, SlicedBytes& out) {
    while (n > 0) {
      if (at_end()) return false;
      const grpc::Slice& slice = slices_[index_];
      const uint64_t here = std::min<uint64_t>(n, slice.size() - offset_);
      out.Append({reinterpret_cast<const std::byte*>(slice.begin()) + offset_, here});
      Advance(here);
      n -= here;
    }
    return true;
  }

 private:
  void Advance(uint64_t n) {
    offset_ += n;
    position_ += n;
    Settle();
  }
  void Settle() {
    while (index_ < slices_.size() && offset_ == slices_[index_].size()) {
      ++index_;
      offset_ = 0;
    }
  }

  const std::vector<grpc::Slice>& slices_;
  size_t index_ = 0;
  uint64_t offset_ = 0;
  uint64_t position_ = 0;
};

void AppendVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void AppendPieces(std::string& out, const SlicedBytes& bytes) {
  out.reserve(out.size() + bytes.size);
  for (std::span<const std::byte> piece : bytes.pieces) {
    out.append(reinterpret_cast<const char*>(piece.data()), piece.size());
  }
}

// Protobuf reads lengths of at most 5 bytes (< 2^31).
bool ReadLength(SliceReader& reader, uint64_t& length) {
  std::string raw;
  return reader.ReadVarint(length, raw, 5) && length < (uint64_t{1} << 31);
}

// The next field's tag, and whether it is `field` as a length-delimited
// field in its one-byte form: only those are read here; every other form
// goes to protobuf verbatim. False (give up) at the end of the bytes, on
// field 0 and on any other form of `field` (protobuf decides those).
bool ReadTag(SliceReader& reader, int field, uint64_t& tag, std::string& raw, bool& is_field) {
  raw.clear();
  if (!reader.ReadVarint(tag, raw) || (tag >> 3) == 0) return false;
  is_field = raw.size() == 1 && tag == LengthDelimitedTag(field);
  return is_field || (tag >> 3) != static_cast<uint64_t>(field);
}

// Copies one field, whose tag (`raw_tag`) was just read, to `out` exactly as
// it was on the wire. False on groups and on a field that runs past the end.
bool CopyField(SliceReader& reader, uint64_t tag, const std::string& raw_tag, std::string& out) {
  out += raw_tag;
  SlicedBytes bytes;
  uint64_t value = 0;
  switch (tag & 7) {
    case WireFormatLite::WIRETYPE_VARINT:
      return reader.ReadVarint(value, out);
    case WireFormatLite::WIRETYPE_FIXED64:
    case WireFormatLite::WIRETYPE_FIXED32:
      if (!reader.Take((tag & 7) == WireFormatLite::WIRETYPE_FIXED64 ? 8 : 4, bytes)) return false;
      AppendPieces(out, bytes);
      return true;
    case WireFormatLite::WIRETYPE_LENGTH_DELIMITED:
      if (!reader.ReadVarint(value, out) || !reader.Take(value, bytes)) return false;
      AppendPieces(out, bytes);
      return true;
    default:
      return false;
  }
}

// One Image of `length` bytes: its data field's bytes stay in the slices
// (`data`), the other fields are parsed by protobuf. Last data field wins, as
// in protobuf.
bool ReadImage(SliceReader& reader, uint64_t length, v1::Image& image,
               std::optional<SlicedBytes>& data) {
  const uint64_t end = reader.position() + length;
  std::string fields;
  std::string raw_tag;
  while (reader.position() < end) {
    uint64_t tag = 0;
    bool is_data = false;
    if (!ReadTag(reader, v1::Image::kDataFieldNumber, tag, raw_tag, is_data)) return false;
    if (is_data) {
      uint64_t n = 0;
      if (!ReadLength(reader, n)) return false;
      data.emplace();
      if (!reader.Take(n, *data)) return false;
    } else if (!CopyField(reader, tag, raw_tag, fields)) {
      return false;
    }
  }
  return reader.position() == end && image.ParseFromString(fields);
}

// The whole request with raw images' data left in the slices; false when
// anything is unexpected (the caller then lets protobuf parse it all).
bool ReadRequest(const std::vector<grpc::Slice>& slices, WireRequest& out) {
  SliceReader reader(slices);
  std::string fields;  // everything but the inputs: small
  std::string raw_tag;
  std::vector<v1::Image> inputs;
  std::vector<std::optional<SlicedBytes>> external;
  while (!reader.at_end()) {
    uint64_t tag = 0;
    bool is_input = false;
    if (!ReadTag(reader, v1::ProcessRequest::kInputsFieldNumber, tag, raw_tag, is_input)) {
      return false;
    }
    if (is_input) {
      uint64_t n = 0;
      if (!ReadLength(reader, n)) return false;
      v1::Image& image = inputs.emplace_back();
      std::optional<SlicedBytes>& data = external.emplace_back();
      if (!ReadImage(reader, n, image, data)) return false;
      if (data.has_value() && image.encoding() == v1::IMAGE_ENCODING_PNG) {
        AppendPieces(*image.mutable_data(), *data);  // the decoder reads it whole
        data.reset();
      }
    } else if (!CopyField(reader, tag, raw_tag, fields)) {
      return false;
    }
  }
  if (!out.message.ParseFromString(fields)) return false;
  for (v1::Image& image : inputs) *out.message.add_inputs() = std::move(image);
  out.external.inputs = std::move(external);
  return true;
}

// A slice that owns the string it points into; gRPC frees it when sent.
grpc::Slice SliceOwning(std::string bytes) {
  auto* owned = new std::string(std::move(bytes));
  return grpc::Slice(owned->data(), owned->size(),
                     [](void* p) { delete static_cast<std::string*>(p); }, owned);
}

// A slice over `bytes` that keeps `owner` alive until gRPC is done with it.
grpc::Slice SliceHeld(std::span<const std::byte> bytes, const std::shared_ptr<void>& owner) {
  auto* keep = new std::shared_ptr<void>(owner);
  return grpc::Slice(const_cast<std::byte*>(bytes.data()), bytes.size(),
                     [](void* p) { delete static_cast<std::shared_ptr<void>*>(p); }, keep);
}

// A length-delimited field's tag and length, appended to `out`.
void AppendFieldHead(std::string& out, int field, size_t length) {
  AppendVarint(out, LengthDelimitedTag(field));
  AppendVarint(out, length);
}

std::optional<std::span<const std::byte>> HeldBytes(const ExternalImages* held, int output) {
  if (held == nullptr) return std::nullopt;
  for (const auto& [index, bytes] : held->held) {
    if (index == output) return bytes;
  }
  return std::nullopt;
}

}  // namespace

absl::Status ParseProcessRequest(const grpc::ByteBuffer& bytes, WireRequest& request) {
  request.message.Clear();
  request.external = {};
  request.slices.clear();
  request.external.wire_bytes_in = bytes.Length();
  std::vector<grpc::Slice> slices;
  if (bytes.Dump(&slices).ok() && ReadRequest(slices, request)) {
    request.slices = std::move(slices);
    return absl::OkStatus();
  }
  request.message.Clear();
  request.external.inputs.clear();
  grpc::ByteBuffer shared(bytes);  // the reader needs a mutable buffer; this shares the slices
  grpc::ProtoBufferReader reader(&shared);
  if (!reader.status().ok() || !request.message.ParseFromZeroCopyStream(&reader)) {
    return absl::InvalidArgumentError(
        "the request is not a valid rgfx.v1.ProcessRequest message (protobuf parse failed)");
  }
  return absl::OkStatus();
}

v1::ProcessRequest RejoinedRequest(const WireRequest& request) {
  v1::ProcessRequest out = request.message;
  for (int i = 0; i < out.inputs_size(); ++i) {
    const SlicedBytes* external = request.external.input(static_cast<size_t>(i));
    if (external == nullptr) continue;
    std::string data(external->size, '\0');
    external->CopyTo(std::as_writable_bytes(std::span<char>(data)));
    out.mutable_inputs(i)->set_data(std::move(data));
  }
  return out;
}

grpc::ByteBuffer SerializeSharingImages(v1::ProcessResponse& response,
                                        const ExternalImages* held) {
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
    const std::optional<std::span<const std::byte>> kept = HeldBytes(held, i);
    std::string& owned = data[static_cast<size_t>(i)];
    const uint64_t size = kept.has_value() ? kept->size() : owned.size();
    std::string data_head;
    if (size > 0) AppendFieldHead(data_head, v1::Image::kDataFieldNumber, size);
    std::string head;
    AppendFieldHead(head, v1::ProcessResponse::kOutputsFieldNumber,
                    fields.size() + data_head.size() + size);
    head += fields;
    head += data_head;
    slices.push_back(SliceOwning(std::move(head)));
    if (size == 0) continue;
    slices.push_back(kept.has_value() ? SliceHeld(*kept, held->owner)
                                      : SliceOwning(std::move(owned)));
  }
  outputs.Swap(response.mutable_outputs());
  return grpc::ByteBuffer(slices.data(), slices.size());
}

uint64_t WireSize(const v1::ProcessResponse& response, const ExternalImages* held) {
  uint64_t size = response.ByteSizeLong();
  if (held == nullptr) return size;
  for (const auto& [index, bytes] : held->held) {
    if (bytes.empty() || index >= response.outputs_size()) continue;
    const uint64_t base = response.outputs(index).ByteSizeLong();
    const uint64_t with = base + 1 + CodedOutputStream::VarintSize64(bytes.size()) + bytes.size();
    size += CodedOutputStream::VarintSize64(with) + with -
            (CodedOutputStream::VarintSize64(base) + base);
  }
  return size;
}

}  // namespace rgfx::service
