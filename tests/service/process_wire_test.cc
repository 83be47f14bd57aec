// service/process_wire: Process's messages on the wire without gRPC's
// generic serialization. The response's images must reach the buffer by
// reference, and the bytes must parse back to the same message.
#include "service/process_wire.h"

#include <grpcpp/support/slice.h>

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "google/protobuf/util/message_differencer.h"

namespace rgfx::service {
namespace {

std::string Flatten(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  EXPECT_TRUE(buffer.Dump(&slices).ok());
  std::string out;
  for (const grpc::Slice& s : slices) out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  return out;
}

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

v1::ProcessResponse FullResponse() {
  v1::ProcessResponse r;
  r.set_id("r1-7");
  for (size_t size : {size_t{0}, size_t{5}, size_t{1} << 20, size_t{200}}) {
    v1::Image& image = *r.add_outputs();
    image.set_name("out" + std::to_string(size));
    image.set_encoding(v1::IMAGE_ENCODING_RGBA8);
    image.set_width(7);
    image.set_height(3);
    image.set_data(RandomBytes(size, static_cast<uint32_t>(size)));
    image.set_color_space(v1::COLOR_SPACE_LINEAR);
    image.set_alpha_mode(v1::ALPHA_MODE_PREMULTIPLIED);
  }
  v1::PassTiming& pass = *r.add_passes();
  pass.set_pass("blur");
  pass.set_type("gaussian_blur");
  pass.set_gpu_ns(12345);
  r.mutable_stages()->set_total_ns(987654321);
  r.mutable_stages()->set_encode_ns(42);
  r.mutable_stats()->set_steps(3);
  r.set_device("lavapipe");
  r.set_graph_hash("abcdef");
  r.add_output_errors()->set_psnr_vs_exact_db(51.5);
  return r;
}

TEST(ProcessWire, ResponseParsesBackToTheSameMessage) {
  for (int outputs : {0, 1, 4}) {
    v1::ProcessResponse response = FullResponse();
    while (response.outputs_size() > outputs) response.mutable_outputs()->RemoveLast();
    const v1::ProcessResponse expected = response;
    const grpc::ByteBuffer wire = SerializeSharingImages(response);
    EXPECT_EQ(wire.Length(), expected.ByteSizeLong());
    v1::ProcessResponse parsed;
    ASSERT_TRUE(parsed.ParseFromString(Flatten(wire)));
    std::string diff;
    google::protobuf::util::MessageDifferencer differencer;
    differencer.ReportDifferencesToString(&diff);
    EXPECT_TRUE(differencer.Compare(expected, parsed)) << outputs << ": " << diff;
    // The response keeps its outputs, without their data.
    ASSERT_EQ(response.outputs_size(), outputs);
    for (const v1::Image& image : response.outputs()) EXPECT_TRUE(image.data().empty());
  }
}

TEST(ProcessWire, ImagesAreSharedNotCopied) {
  v1::ProcessResponse response = FullResponse();
  const char* image = response.outputs(2).data().data();  // the 1 MiB one
  const grpc::ByteBuffer wire = SerializeSharingImages(response);
  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(wire.Dump(&slices).ok());
  bool shared = false;
  for (const grpc::Slice& s : slices) {
    shared |= reinterpret_cast<const char*>(s.begin()) == image && s.size() == (size_t{1} << 20);
  }
  EXPECT_TRUE(shared) << "the image's bytes were copied into the buffer";
}

// The request as protobuf would have parsed it; external inputs have no
// data in the message.
v1::ProcessRequest Rejoined(const WireRequest& wire) {
  for (int i = 0; i < wire.message.inputs_size(); ++i) {
    if (wire.external.input(static_cast<size_t>(i)) != nullptr) {
      EXPECT_TRUE(wire.message.inputs(i).data().empty()) << i;
    }
  }
  return RejoinedRequest(wire);
}

// `bytes` cut into slices of random sizes (1 byte to 2x the mean).
grpc::ByteBuffer Sliced(const std::string& bytes, size_t mean, std::mt19937& rng) {
  std::vector<grpc::Slice> slices;
  for (size_t at = 0; at < bytes.size();) {
    const size_t n = std::min(bytes.size() - at, 1 + rng() % (2 * mean));
    slices.emplace_back(bytes.data() + at, n);
    at += n;
  }
  return grpc::ByteBuffer(slices.data(), slices.size());
}

v1::ProcessRequest RandomRequest(std::mt19937& rng) {
  v1::ProcessRequest request;
  if (rng() % 2) request.set_id("req-" + std::to_string(rng() % 1000));
  const int inputs = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < inputs; ++i) {
    v1::Image& image = *request.add_inputs();
    image.set_name("in" + std::to_string(i));
    const bool png = rng() % 3 == 0;
    image.set_encoding(png ? v1::IMAGE_ENCODING_PNG : v1::IMAGE_ENCODING_RGBA8);
    image.set_width(rng() % 50);
    image.set_height(rng() % 50);
    if (rng() % 5) image.set_data(RandomBytes(rng() % 5000, static_cast<uint32_t>(rng())));
    if (rng() % 2) image.set_alpha_mode(v1::ALPHA_MODE_PREMULTIPLIED);
  }
  v1::Pass& pass = *request.mutable_graph()->add_passes();
  pass.set_name("blur");
  pass.add_inputs("in0");
  pass.add_outputs("blurred");
  pass.mutable_gaussian_blur()->set_radius(static_cast<int32_t>(rng() % 64));
  request.mutable_graph()->add_outputs("blurred");
  if (rng() % 2) request.mutable_options()->set_gpu_repeats(rng() % 4);
  return request;
}

TEST(ProcessWire, RequestsParseAsProtobufWouldWithRawDataLeftInTheSlices) {
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    const v1::ProcessRequest request = RandomRequest(rng);
    std::string bytes = request.SerializeAsString();
    // Fields in another order, as another encoder may write them (parsers
    // must accept any order): the options, the graph and an input moved to
    // the end by appending a second serialization of them; protobuf merges.
    v1::ProcessRequest tail;
    if (round % 3 == 0) {
      *tail.add_inputs() = request.inputs(0);
      *tail.mutable_graph() = request.graph();
      bytes += tail.SerializeAsString();
    }
    v1::ProcessRequest expected;
    ASSERT_TRUE(expected.ParseFromString(bytes));
    const grpc::ByteBuffer buffer = Sliced(bytes, 1 + rng() % 700, rng);
    WireRequest wire;
    ASSERT_TRUE(ParseProcessRequest(buffer, wire).ok()) << round;
    EXPECT_EQ(wire.external.wire_bytes_in, bytes.size());
    std::string diff;
    google::protobuf::util::MessageDifferencer differencer;
    differencer.ReportDifferencesToString(&diff);
    EXPECT_TRUE(differencer.Compare(expected, Rejoined(wire))) << round << ": " << diff;
    // Raw data is left in the slices (by reference), PNG data is not.
    for (int i = 0; i < expected.inputs_size(); ++i) {
      const bool png = expected.inputs(i).encoding() == v1::IMAGE_ENCODING_PNG;
      const bool has_data = !expected.inputs(i).data().empty();
      const SlicedBytes* external = wire.external.input(static_cast<size_t>(i));
      EXPECT_EQ(external != nullptr, !png && has_data) << round << " input " << i;
      if (external == nullptr) continue;
      for (std::span<const std::byte> piece : external->pieces) {
        bool inside = false;
        for (const grpc::Slice& s : wire.slices) {
          const auto* begin = reinterpret_cast<const std::byte*>(s.begin());
          inside |= piece.data() >= begin && piece.data() + piece.size() <= begin + s.size();
        }
        EXPECT_TRUE(inside) << "a piece of input " << i << " is not in the request's slices";
      }
    }
  }
}

TEST(ProcessWire, TheLastDataFieldOfAnImageWins) {
  v1::Image first, second;
  first.set_name("a");
  first.set_encoding(v1::IMAGE_ENCODING_RGBA8);
  first.set_data("11111111");
  second.set_data("2222");
  const std::string image = first.SerializeAsString() + second.SerializeAsString();
  std::string bytes;
  bytes.push_back(static_cast<char>((2 << 3) | 2));  // inputs, length-delimited
  bytes.push_back(static_cast<char>(image.size()));
  bytes += image;
  v1::ProcessRequest expected;
  ASSERT_TRUE(expected.ParseFromString(bytes));
  ASSERT_EQ(expected.inputs(0).data(), "2222");
  const grpc::Slice slice(bytes.data(), bytes.size());
  WireRequest wire;
  ASSERT_TRUE(ParseProcessRequest(grpc::ByteBuffer(&slice, 1), wire).ok());
  ASSERT_NE(wire.external.input(0), nullptr);
  EXPECT_EQ(wire.external.input(0)->size, 4u);
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(expected, Rejoined(wire)));
}

TEST(ProcessWire, EveryTruncationParsesExactlyWhenProtobufDoes) {
  std::mt19937 rng(11);
  const std::string bytes = RandomRequest(rng).SerializeAsString();
  for (size_t n = 0; n <= bytes.size(); n += 1 + n / 50) {
    const std::string cut = bytes.substr(0, n);
    v1::ProcessRequest expected;
    const bool protobuf_ok = expected.ParseFromString(cut);
    const grpc::ByteBuffer buffer = Sliced(cut, 97, rng);
    WireRequest wire;
    const absl::Status status = ParseProcessRequest(buffer, wire);
    ASSERT_EQ(status.ok(), protobuf_ok) << "cut at " << n;
    if (protobuf_ok) {
      EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(expected, Rejoined(wire)))
          << "cut at " << n;
    } else {
      EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    }
  }
}

TEST(ProcessWire, WhatTheFastReaderSkipsProtobufParses) {
  // An unknown group (wire types 3/4) at the top level: protobuf keeps it as
  // an unknown field; the fast reader hands the whole message to protobuf.
  v1::ProcessRequest request;
  v1::Image& image = *request.add_inputs();
  image.set_name("a");
  image.set_encoding(v1::IMAGE_ENCODING_RGBA8);
  image.set_data("abcd");
  std::string bytes = request.SerializeAsString();
  bytes += std::string{static_cast<char>((5 << 3) | 3), static_cast<char>((1 << 3) | 0), 7,
                       static_cast<char>((5 << 3) | 4)};
  v1::ProcessRequest expected;
  ASSERT_TRUE(expected.ParseFromString(bytes));
  const grpc::Slice slice(bytes.data(), bytes.size());
  WireRequest wire;
  ASSERT_TRUE(ParseProcessRequest(grpc::ByteBuffer(&slice, 1), wire).ok());
  EXPECT_EQ(wire.external.input(0), nullptr);  // protobuf put the data in the message
  EXPECT_EQ(wire.message.inputs(0).data(), "abcd");
  EXPECT_EQ(wire.message.SerializeAsString(), expected.SerializeAsString());
}

// Overlong varints (a tag or a length in more bytes than needed) are valid
// up to protobuf's own limits and invalid beyond them: the reader leaves
// every such form to protobuf, so both agree (found by fuzz_proto_graph).
TEST(ProcessWire, OverlongTagsAndLengthsAreJudgedAsProtobufJudgesThem) {
  v1::Image image;
  image.set_name("a");
  image.set_encoding(v1::IMAGE_ENCODING_RGBA8);
  image.set_data("abcd");
  const std::string body = image.SerializeAsString();
  const std::string two_byte_tag = {static_cast<char>(0x92), 0x00};  // field 2, length-delimited
  auto length = [](size_t n, int bytes) {
    std::string out;
    for (int i = 0; i < bytes; ++i) {
      out.push_back(static_cast<char>(((n >> (7 * i)) & 0x7f) | (i + 1 < bytes ? 0x80 : 0)));
    }
    return out;
  };
  for (const std::string& tag : {std::string{0x12}, two_byte_tag}) {
    for (int length_bytes = 1; length_bytes <= 7; ++length_bytes) {
      const std::string bytes = tag + length(body.size(), length_bytes) + body;
      v1::ProcessRequest expected;
      const bool protobuf_ok = expected.ParseFromString(bytes);
      const grpc::Slice slice(bytes.data(), bytes.size());
      WireRequest wire;
      const absl::Status status = ParseProcessRequest(grpc::ByteBuffer(&slice, 1), wire);
      ASSERT_EQ(status.ok(), protobuf_ok) << tag.size() << "-byte tag, " << length_bytes
                                          << "-byte length";
      if (protobuf_ok) {
        EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(expected, Rejoined(wire)));
      }
    }
  }
}

TEST(ProcessWire, GarbageIsInvalidArgument) {
  const std::string garbage = "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01";
  const grpc::Slice bad(garbage.data(), garbage.size());
  WireRequest wire;
  const absl::Status status = ParseProcessRequest(grpc::ByteBuffer(&bad, 1), wire);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("rgfx.v1.ProcessRequest"), std::string::npos);
}

TEST(ProcessWire, HeldOutputsAreSentFromTheirMemoryAndReleasedAfter) {
  for (int held_index : {0, 2, 3}) {
    v1::ProcessResponse response = FullResponse();
    // The held output's bytes live elsewhere (the download memory); the
    // response has none for it.
    auto memory = std::make_shared<std::string>(RandomBytes(70000 + held_index, 9));
    response.mutable_outputs(held_index)->clear_data();
    ExternalImages held;
    held.held.emplace_back(held_index, std::as_bytes(std::span<const char>(*memory)));
    held.owner = memory;
    v1::ProcessResponse expected = response;
    expected.mutable_outputs(held_index)->set_data(*memory);
    const uint64_t predicted = WireSize(response, &held);
    {
      const grpc::ByteBuffer wire = SerializeSharingImages(response, &held);
      EXPECT_EQ(wire.Length(), expected.ByteSizeLong());
      EXPECT_EQ(predicted, expected.ByteSizeLong());
      v1::ProcessResponse parsed;
      ASSERT_TRUE(parsed.ParseFromString(Flatten(wire)));
      std::string diff;
      google::protobuf::util::MessageDifferencer differencer;
      differencer.ReportDifferencesToString(&diff);
      EXPECT_TRUE(differencer.Compare(expected, parsed)) << held_index << ": " << diff;
      std::vector<grpc::Slice> slices;
      ASSERT_TRUE(wire.Dump(&slices).ok());
      bool by_reference = false;
      for (const grpc::Slice& s : slices) {
        by_reference |= reinterpret_cast<const char*>(s.begin()) == memory->data();
      }
      EXPECT_TRUE(by_reference) << "the held bytes were copied";
      held = {};  // the job's side may go; the buffer keeps the memory
      EXPECT_GT(memory.use_count(), 1);
    }
    EXPECT_EQ(memory.use_count(), 1) << "the buffer did not let the memory go";
  }
}

}  // namespace
}  // namespace rgfx::service
