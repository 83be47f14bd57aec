#include "client/response_summary.h"

#include <climits>
#include <string>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <grpcpp/support/proto_buffer_reader.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace rgfx::client {
namespace {

using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;

// The low three bits of a tag (protobuf encoding). Groups (3, 4) are not
// listed: proto3 cannot declare them, so a response holding one is not a
// ProcessResponse.
enum class WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

absl::Status Malformed(const CodedInputStream& in, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("ProcessResponse: ", what, " at byte ", in.CurrentPosition()));
}

// Reads a length-delimited field's length; false past int's range, which
// CodedInputStream's Skip and ReadString take.
bool ReadLength(CodedInputStream& in, int& length) {
  uint32_t value = 0;
  if (!in.ReadVarint32(&value) || value > static_cast<uint32_t>(INT_MAX)) return false;
  length = static_cast<int>(value);
  return true;
}

// Copies the value of a field whose tag was just read from `in` to `out`
// (after writing the tag to it).
absl::Status CopyField(uint32_t tag, CodedInputStream& in, CodedOutputStream& out) {
  out.WriteTag(tag);
  switch (static_cast<WireType>(tag & 7)) {
    case WireType::kVarint: {
      uint64_t value = 0;
      if (!in.ReadVarint64(&value)) return Malformed(in, "truncated varint");
      out.WriteVarint64(value);
      return absl::OkStatus();
    }
    case WireType::kFixed64: {
      uint64_t value = 0;
      if (!in.ReadLittleEndian64(&value)) return Malformed(in, "truncated fixed64");
      out.WriteLittleEndian64(value);
      return absl::OkStatus();
    }
    case WireType::kFixed32: {
      uint32_t value = 0;
      if (!in.ReadLittleEndian32(&value)) return Malformed(in, "truncated fixed32");
      out.WriteLittleEndian32(value);
      return absl::OkStatus();
    }
    case WireType::kLengthDelimited: {
      int length = 0;
      if (!ReadLength(in, length)) return Malformed(in, "bad length");
      std::string value;
      if (!in.ReadString(&value, length)) return Malformed(in, "truncated field");
      out.WriteVarint32(static_cast<uint32_t>(length));
      out.WriteString(value);
      return absl::OkStatus();
    }
  }
  return Malformed(in, absl::StrCat("wire type ", tag & 7, " (not written by proto3)"));
}

}  // namespace

absl::StatusOr<ResponseSummary> SummarizeResponse(grpc::ByteBuffer& message) {
  ResponseSummary summary;
  summary.message_bytes = message.Length();
  if (summary.message_bytes > static_cast<uint64_t>(INT_MAX)) {
    return absl::InvalidArgumentError("ProcessResponse: larger than 2 GiB");
  }
  grpc::ProtoBufferReader reader(&message);
  if (!reader.status().ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("ProcessResponse: ", reader.status().error_message()));
  }
  std::string rest;  // the wire bytes of every field but the outputs
  {
    // No byte limit set: protobuf treats the end of a message at its total
    // bytes limit as an error. (A corrupt length cannot make ReadString
    // reserve memory without a limit either: it reserves only up to one.)
    CodedInputStream in(&reader);
    google::protobuf::io::StringOutputStream rest_stream(&rest);
    CodedOutputStream out(&rest_stream);
    while (true) {
      const int field_start = in.CurrentPosition();
      const uint32_t tag = in.ReadTag();
      if (tag == 0) {
        // The end of the message, or a truncated or zero tag.
        if (!in.ConsumedEntireMessage()) return Malformed(in, "bad tag");
        break;
      }
      if ((tag >> 3) == 0) return Malformed(in, "field number 0");
      if ((tag >> 3) != v1::ProcessResponse::kOutputsFieldNumber) {
        if (absl::Status s = CopyField(tag, in, out); !s.ok()) return s;
        continue;
      }
      int length = 0;
      if (static_cast<WireType>(tag & 7) != WireType::kLengthDelimited) {
        return Malformed(in, "outputs field not length-delimited");
      }
      if (!ReadLength(in, length)) return Malformed(in, "bad outputs length");
      // In place: the reader steps over whole slices without touching them.
      if (!in.Skip(length)) return Malformed(in, "truncated output image");
      ++summary.outputs;
      summary.output_bytes += static_cast<uint64_t>(in.CurrentPosition() - field_start);
    }
  }  // `out` flushes into `rest` here
  if (!summary.rest.ParseFromString(rest)) {
    return absl::InvalidArgumentError("ProcessResponse: a field other than outputs does not parse");
  }
  return summary;
}

}  // namespace rgfx::client
