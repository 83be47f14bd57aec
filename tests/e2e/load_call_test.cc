// The per-call machinery of `rgfx load` (client/load_call.h,
// client/response_summary.h) without a GPU or a server: the response parser
// that skips the output images, over every way gRPC may cut a message into
// slices and over broken messages; and the generic call's method path and
// request bytes against what the generated stub sends.
#include <gtest/gtest.h>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/util/message_differencer.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/support/client_interceptor.h>

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "client/load_call.h"
#include "client/response_summary.h"
#include "rgfx/v1/post_process.grpc.pb.h"

namespace rgfx::client {
namespace {

using google::protobuf::util::MessageDifferencer;

// Every field of ProcessResponse set, two outputs with image bytes of
// several kilobytes (length varints of two bytes), 64-bit and double
// values, nested messages and repeated strings.
v1::ProcessResponse FullResponse() {
  v1::ProcessResponse r;
  r.set_id("request-17");
  for (int i = 0; i < 2; ++i) {
    v1::Image& image = *r.add_outputs();
    image.set_name(i == 0 ? "bloom" : "mask");
    image.set_encoding(v1::IMAGE_ENCODING_RGBA8);
    image.set_width(40 + i);
    image.set_height(30);
    std::string data(static_cast<size_t>(40 + i) * 30 * 4, '\0');
    for (size_t b = 0; b < data.size(); ++b) data[b] = static_cast<char>(b * 7 + i);
    image.set_data(data);
    image.set_color_space(v1::COLOR_SPACE_SRGB);
    image.set_alpha_mode(v1::ALPHA_MODE_STRAIGHT);
  }
  v1::PassTiming& blur = *r.add_passes();
  blur.set_pass("blur");
  blur.set_type("gaussian_blur");
  blur.set_variant("decimated");
  blur.set_gpu_ns(123456789012ULL);
  blur.set_approximate(true);
  blur.set_stated_psnr_db(48.25);
  blur.add_steps()->set_label("horizontal");
  blur.mutable_steps(0)->set_gpu_ns(60000);
  blur.add_steps()->set_label("vertical");
  v1::PassTiming& export_pass = *r.add_passes();
  export_pass.set_pass("export:bloom");
  export_pass.set_type("export");
  export_pass.set_internal(true);
  v1::StageTimings& t = *r.mutable_stages();
  t.set_queue_ns(1);
  t.set_decode_ns(2000);
  t.set_compile_ns(300000);
  t.set_upload_ns(4000000);
  t.set_submit_ns(50000000);
  t.set_gpu_ns(600000000);
  t.set_download_ns(7);
  t.set_encode_ns(8);
  t.set_total_ns(9000000000LL);
  t.set_batch_requests(3);
  v1::GraphStats& s = *r.mutable_stats();
  s.set_passes_run(2);
  s.set_passes_culled(1);
  s.add_culled("unused");
  s.set_steps(4);
  s.set_barriers(3);
  s.set_transient_buffers(2);
  s.set_transient_bytes(1ULL << 40);
  s.set_transient_bytes_unaliased(3ULL << 40);
  s.set_cache_hit(true);
  r.set_device("llvmpipe (LLVM 15.0.6, 256 bits)");
  r.set_graph_hash("0123456789abcdef");
  r.mutable_error()->set_code(3);
  r.mutable_error()->set_message("not really");
  v1::OutputError& e = *r.add_output_errors();
  e.set_output("bloom");
  e.set_psnr_vs_exact_db(51.5);
  e.add_approximate_passes("blur");
  return r;
}

std::string Serialize(const v1::ProcessResponse& response) {
  std::string bytes;
  EXPECT_TRUE(response.SerializeToString(&bytes));
  return bytes;
}

// `bytes` as a ByteBuffer of slices cut at `cuts` (ascending offsets).
grpc::ByteBuffer Sliced(const std::string& bytes, const std::vector<size_t>& cuts) {
  std::vector<grpc::Slice> slices;
  size_t start = 0;
  for (size_t cut : cuts) {
    slices.emplace_back(bytes.data() + start, cut - start);
    start = cut;
  }
  slices.emplace_back(bytes.data() + start, bytes.size() - start);
  return grpc::ByteBuffer(slices.data(), slices.size());
}

// The wire size of one outputs entry: tag (1 byte: field 2), length, image.
uint64_t OutputFieldBytes(const v1::Image& image) {
  const size_t size = image.ByteSizeLong();
  return 1 + google::protobuf::io::CodedOutputStream::VarintSize32(static_cast<uint32_t>(size)) +
         size;
}

// Checks `summary` against `original`: every field but outputs equal, the
// outputs counted, the sizes adding up.
void ExpectSummarizes(const ResponseSummary& summary, const v1::ProcessResponse& original,
                      const std::string& where) {
  v1::ProcessResponse expected = original;
  expected.clear_outputs();
  std::string difference;
  MessageDifferencer differencer;
  differencer.ReportDifferencesToString(&difference);
  EXPECT_TRUE(differencer.Compare(expected, summary.rest)) << where << ": " << difference;
  EXPECT_EQ(summary.message_bytes, original.ByteSizeLong()) << where;
  EXPECT_EQ(summary.outputs, original.outputs_size()) << where;
  uint64_t output_bytes = 0;
  for (const v1::Image& image : original.outputs()) output_bytes += OutputFieldBytes(image);
  EXPECT_EQ(summary.output_bytes, output_bytes) << where;
  EXPECT_EQ(summary.output_bytes + summary.rest.ByteSizeLong(), summary.message_bytes) << where;
}

TEST(ResponseSummary, OneSliceKeepsEveryFieldButTheImages) {
  const v1::ProcessResponse original = FullResponse();
  grpc::ByteBuffer buffer = Sliced(Serialize(original), {});
  absl::StatusOr<ResponseSummary> summary = SummarizeResponse(buffer);
  ASSERT_TRUE(summary.ok()) << summary.status();
  ExpectSummarizes(*summary, original, "one slice");
  EXPECT_EQ(summary->rest.outputs_size(), 0);
  EXPECT_GT(summary->output_bytes, 2 * 40 * 30 * 4u);
}

// Every cut in two (inside each varint, tag, length, string and image) and
// a one-byte slice at every offset (every byte alone between two cuts).
TEST(ResponseSummary, AnySlicingGivesTheSameSummary) {
  const v1::ProcessResponse original = FullResponse();
  const std::string bytes = Serialize(original);
  for (size_t cut = 1; cut < bytes.size(); ++cut) {
    grpc::ByteBuffer two = Sliced(bytes, {cut});
    absl::StatusOr<ResponseSummary> summary = SummarizeResponse(two);
    ASSERT_TRUE(summary.ok()) << "cut at " << cut << ": " << summary.status();
    ExpectSummarizes(*summary, original, "cut at " + std::to_string(cut));
    if (cut + 1 < bytes.size()) {
      grpc::ByteBuffer three = Sliced(bytes, {cut, cut + 1});
      summary = SummarizeResponse(three);
      ASSERT_TRUE(summary.ok()) << "byte " << cut << " alone: " << summary.status();
      ExpectSummarizes(*summary, original, "byte " + std::to_string(cut) + " alone");
    }
  }
  std::vector<size_t> every_byte;
  for (size_t cut = 1; cut < bytes.size(); ++cut) every_byte.push_back(cut);
  grpc::ByteBuffer bytewise = Sliced(bytes, every_byte);
  absl::StatusOr<ResponseSummary> summary = SummarizeResponse(bytewise);
  ASSERT_TRUE(summary.ok()) << summary.status();
  ExpectSummarizes(*summary, original, "a slice per byte");
}

TEST(ResponseSummary, ResponsesWithoutImagesOrEmpty) {
  v1::ProcessResponse failed;
  failed.set_id("x");
  failed.mutable_error()->set_code(8);
  grpc::ByteBuffer buffer = Sliced(Serialize(failed), {});
  absl::StatusOr<ResponseSummary> summary = SummarizeResponse(buffer);
  ASSERT_TRUE(summary.ok()) << summary.status();
  ExpectSummarizes(*summary, failed, "no outputs");

  grpc::ByteBuffer empty(nullptr, 0);
  summary = SummarizeResponse(empty);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->message_bytes, 0u);
  EXPECT_EQ(summary->outputs, 0);
}

// A cut anywhere: an error, or (at a field boundary) the shorter message it
// is, whose sizes add up; never a crash. Inside the image bytes: an error.
TEST(ResponseSummary, TruncatedMessagesFailOrParseAsThePrefix) {
  const v1::ProcessResponse original = FullResponse();
  const std::string bytes = Serialize(original);
  int failed = 0;
  for (size_t length = 0; length < bytes.size(); ++length) {
    grpc::ByteBuffer prefix = Sliced(bytes.substr(0, length), length > 3 ? std::vector<size_t>{3}
                                                                         : std::vector<size_t>{});
    absl::StatusOr<ResponseSummary> summary = SummarizeResponse(prefix);
    if (!summary.ok()) {
      ++failed;
      EXPECT_EQ(summary.status().code(), absl::StatusCode::kInvalidArgument);
      continue;
    }
    EXPECT_EQ(summary->message_bytes, length);
    EXPECT_EQ(summary->output_bytes + summary->rest.ByteSizeLong(), length) << length;
  }
  EXPECT_GT(failed, static_cast<int>(bytes.size()) * 9 / 10);
  // Cut in the middle of the first image's pixels.
  const size_t first_output = bytes.find(original.outputs(0).data().substr(0, 16));
  ASSERT_NE(first_output, std::string::npos);
  grpc::ByteBuffer cut = Sliced(bytes.substr(0, first_output + 100), {first_output + 50});
  absl::StatusOr<ResponseSummary> summary = SummarizeResponse(cut);
  ASSERT_FALSE(summary.ok());
  EXPECT_NE(summary.status().message().find("truncated output image"), std::string::npos)
      << summary.status();
}

absl::Status SummarizeBytes(const std::string& bytes) {
  grpc::ByteBuffer buffer = Sliced(bytes, {});
  return SummarizeResponse(buffer).status();
}

TEST(ResponseSummary, MalformedMessagesAreErrors) {
  const std::string valid = Serialize(FullResponse());
  auto expect_error = [](const std::string& bytes, const std::string& message) {
    const absl::Status status = SummarizeBytes(bytes);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << message;
    EXPECT_NE(status.message().find(message), absl::string_view::npos) << status;
  };
  expect_error(std::string("\0", 1), "bad tag");
  expect_error(valid + std::string("\0", 1), "bad tag");
  expect_error(valid + "\x80", "bad tag");                      // truncated tag varint
  expect_error("\x02\x00", "field number 0");                    // field 0, length-delimited
  expect_error("\x10\x01", "outputs field not length-delimited");  // field 2 as a varint
  expect_error("\x12\xff\xff\xff\xff\x0f", "bad outputs length");  // 2^32 - 1
  expect_error("\x12\x05\x01\x02", "truncated output image");
  expect_error("\x5b", "wire type 3");                          // field 11, a group
  expect_error("\x0a\x05id", "truncated field");                // id claims 5 bytes
  expect_error("\x38\x80\x80", "truncated varint");             // field 7 as a varint
  expect_error("\x49\x01\x02\x03", "truncated fixed64");
  expect_error("\x4d\x01\x02", "truncated fixed32");
  // stages (field 4) holding a truncated varint: copied, then refused by
  // the parse of what is not an image.
  expect_error(std::string("\x22\x02\x08\x80", 4), "does not parse");
  // id (a proto3 string) that is not UTF-8.
  expect_error("\x0a\x02\xc3\x28", "does not parse");

  grpc::ByteBuffer invalid;  // no grpc_byte_buffer at all
  EXPECT_FALSE(SummarizeResponse(invalid).ok());
}

// Records what the calls of a channel ask for: the method path and the
// serialized request.
class Recorder : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  struct Call {
    std::string method;
    std::string request;
  };
  std::vector<Call> calls() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }

  grpc::experimental::Interceptor* CreateClientInterceptor(
      grpc::experimental::ClientRpcInfo* info) override {
    return new Interceptor(this, info->method());
  }

 private:
  class Interceptor : public grpc::experimental::Interceptor {
   public:
    Interceptor(Recorder* recorder, std::string method)
        : recorder_(recorder), method_(std::move(method)) {}
    void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
      if (methods->QueryInterceptionHookPoint(
              grpc::experimental::InterceptionHookPoints::PRE_SEND_MESSAGE)) {
        std::vector<grpc::Slice> slices;
        std::string bytes;
        if (methods->GetSerializedSendMessage()->Dump(&slices).ok()) {
          for (const grpc::Slice& s : slices) {
            bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
          }
        }
        std::lock_guard<std::mutex> lock(recorder_->mu_);
        recorder_->calls_.push_back({method_, bytes});
      }
      methods->Proceed();
    }

   private:
    Recorder* recorder_;
    const std::string method_;
  };

  std::mutex mu_;
  std::vector<Call> calls_;
};

// The generic call asks for the same method with the same bytes as the
// generated stub. The channel leads nowhere (port 1 refuses): the
// interceptors see each call before it fails.
TEST(LoadCall, SendsWhatTheGeneratedStubSends) {
  EXPECT_EQ(ProcessMethodPath(), "/rgfx.v1.PostProcess/Process");
  auto recorder = std::make_unique<Recorder>();
  Recorder* calls = recorder.get();
  std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>> factories;
  factories.push_back(std::move(recorder));
  std::shared_ptr<grpc::Channel> channel = grpc::experimental::CreateCustomChannelWithInterceptors(
      "127.0.0.1:1", grpc::InsecureChannelCredentials(), grpc::ChannelArguments(),
      std::move(factories));

  v1::ProcessRequest request;
  request.set_id("r");
  v1::Image& image = *request.add_inputs();
  image.set_name("image");
  image.set_encoding(v1::IMAGE_ENCODING_RGBA8);
  image.set_width(64);
  image.set_height(64);
  image.set_data(std::string(64 * 64 * 4, 'x'));
  request.mutable_graph()->add_outputs("image");
  request.mutable_options()->set_output_encoding(v1::IMAGE_ENCODING_RGBA8);

  auto deadline = [] { return std::chrono::system_clock::now() + std::chrono::seconds(10); };
  {
    grpc::ClientContext context;
    context.set_deadline(deadline());
    v1::ProcessResponse response;
    const grpc::Status status =
        v1::PostProcess::NewStub(channel)->Process(&context, request, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
  }
  absl::StatusOr<SerializedRequest> serialized = SerializeRequest(request);
  ASSERT_TRUE(serialized.ok()) << serialized.status();
  EXPECT_EQ(serialized->bytes, request.ByteSizeLong());
  EXPECT_EQ(serialized->message.Length(), request.ByteSizeLong());
  {
    ProcessCaller caller(channel);
    for (int i = 0; i < 2; ++i) {  // the same buffer again: it is shared, not consumed
      grpc::ClientContext context;
      context.set_deadline(deadline());
      ResponseSummary summary;
      const grpc::Status status = caller.Call(&context, *serialized, &summary);
      EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
    }
  }
  const std::vector<Recorder::Call> seen = calls->calls();
  ASSERT_EQ(seen.size(), 3u);
  for (const Recorder::Call& call : seen) {
    EXPECT_EQ(call.method, seen[0].method);
    EXPECT_TRUE(call.request == seen[0].request) << "the request bytes differ";
  }
  EXPECT_EQ(seen[0].method, ProcessMethodPath());
  EXPECT_EQ(seen[0].request, request.SerializeAsString());
}

}  // namespace
}  // namespace rgfx::client
