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

TEST(ProcessWire, RequestsParseAndGarbageIsInvalidArgument) {
  v1::ProcessRequest request;
  request.set_id("x");
  v1::Image& image = *request.add_inputs();
  image.set_name("image");
  image.set_data(RandomBytes(3000, 3));
  const std::string bytes = request.SerializeAsString();
  // Two slices, cut inside the image's bytes, as gRPC may hand them over.
  const grpc::Slice parts[] = {grpc::Slice(bytes.data(), 1000),
                               grpc::Slice(bytes.data() + 1000, bytes.size() - 1000)};
  v1::ProcessRequest parsed;
  ASSERT_TRUE(ParseProcessRequest(grpc::ByteBuffer(parts, 2), parsed).ok());
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(request, parsed));

  const std::string garbage = "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01";
  const grpc::Slice bad(garbage.data(), garbage.size());
  const absl::Status status = ParseProcessRequest(grpc::ByteBuffer(&bad, 1), parsed);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("rgfx.v1.ProcessRequest"), std::string::npos);
}

}  // namespace
}  // namespace rgfx::service
