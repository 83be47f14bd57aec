// End to end: every kind of bad input is answered with the right code and a
// message naming the problem, and the server keeps serving; deadlines,
// cancellation and a full queue.
#include <png.h>

#include <grpcpp/generic/generic_stub.h>

#include <atomic>
#include <future>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "tests/e2e/server_fixture.h"
#include "tests/service/png_test_util.h"

namespace rgfx::testing {
namespace {

using ::testing::HasSubstr;

struct BadCase {
  std::string name;
  std::function<void(v1::ProcessRequest&)> corrupt;
  grpc::StatusCode code;
  std::string substring;
};

constexpr char kBlurGraph[] = R"({
  "passes": [{"name": "blur", "inputs": ["image"], "outputs": ["out"], "gaussianBlur": {"radius": 2}}],
  "outputs": ["out"]})";

v1::Pass& AddBlur(v1::ProcessRequest& r, const std::string& name, const std::string& in,
                  const std::string& out) {
  v1::Pass& pass = *r.mutable_graph()->add_passes();
  pass.set_name(name);
  pass.add_inputs(in);
  pass.add_outputs(out);
  pass.mutable_gaussian_blur()->set_radius(1);
  return pass;
}

void SetPngSize(std::string& png, uint32_t width, uint32_t height) {
  const size_t ihdr = ChunkDataOffset(png, "IHDR");
  for (int i = 0; i < 4; ++i) {
    png[ihdr + i] = static_cast<char>(width >> (24 - 8 * i));
    png[ihdr + 4 + i] = static_cast<char>(height >> (24 - 8 * i));
  }
  FixChunkCrc(png, "IHDR");
}

std::string& Data(v1::ProcessRequest& r) { return *r.mutable_inputs(0)->mutable_data(); }

std::vector<BadCase> BadCases() {
  using C = grpc::StatusCode;
  return {
      {"TruncatedPng", [](auto& r) { Data(r).resize(Data(r).size() / 2); }, C::INVALID_ARGUMENT,
       "truncated"},
      {"BadCrc",
       [](auto& r) {
         const size_t idat = ChunkDataOffset(Data(r), "IDAT");
         const size_t length = (uint8_t(Data(r)[idat - 6]) << 8) | uint8_t(Data(r)[idat - 5]);
         Data(r)[idat + length] ^= 0x5a;
       },
       C::INVALID_ARGUMENT, "CRC"},
      {"BadIhdr",
       [](auto& r) {
         Data(r)[ChunkDataOffset(Data(r), "IHDR") + 9] = 1;  // colour type 1 does not exist
         FixChunkCrc(Data(r), "IHDR");
       },
       C::INVALID_ARGUMENT, "IHDR"},
      {"ZeroWidth", [](auto& r) { SetPngSize(Data(r), 0, 16); }, C::INVALID_ARGUMENT, "width"},
      {"HugeHeader", [](auto& r) { SetPngSize(Data(r), 100000, 100000); }, C::RESOURCE_EXHAUSTED,
       "100000x100000"},
      {"NotAPng", [](auto& r) { Data(r) = "just some text"; }, C::INVALID_ARGUMENT, "not a PNG"},
      {"RawSizeMismatch",
       [](auto& r) {
         v1::Image& image = *r.mutable_inputs(0);
         image.set_encoding(v1::IMAGE_ENCODING_RGBA16F);
         image.set_width(4);
         image.set_height(4);
         image.set_data(std::string(4 * 4 * 8 - 1, '\0'));
       },
       C::INVALID_ARGUMENT, "127 bytes"},
      {"NoPassType", [](auto& r) { r.mutable_graph()->mutable_passes(0)->clear_gaussian_blur(); },
       C::INVALID_ARGUMENT, "pass 'blur': no pass type"},
      {"UnknownPassType",
       [](auto& r) {
         v1::Pass& pass = *r.mutable_graph()->mutable_passes(0);
         pass.clear_gaussian_blur();
         // What a newer client's pass type looks like to this server.
         pass.GetReflection()->MutableUnknownFields(&pass)->AddLengthDelimited(99, "");
       },
       C::INVALID_ARGUMENT, "unknown pass type"},
      {"UnknownInput",
       [](auto& r) { r.mutable_graph()->mutable_passes(0)->set_inputs(0, "nowhere"); },
       C::INVALID_ARGUMENT, "nowhere"},
      {"Cycle",
       [](auto& r) {
         r.mutable_graph()->mutable_passes(0)->set_inputs(0, "b");
         AddBlur(r, "second", "out", "b");
       },
       C::INVALID_ARGUMENT, "cycle"},
      {"DuplicatePassName", [](auto& r) { AddBlur(r, "blur", "image", "other"); },
       C::INVALID_ARGUMENT, "blur"},
      {"ResourceWrittenTwice", [](auto& r) { AddBlur(r, "again", "image", "out"); },
       C::INVALID_ARGUMENT, "out"},
      {"NegativeRadius",
       [](auto& r) { r.mutable_graph()->mutable_passes(0)->mutable_gaussian_blur()->set_radius(-1); },
       C::INVALID_ARGUMENT, "radius"},
      {"NanSigma",
       [](auto& r) {
         r.mutable_graph()->mutable_passes(0)->mutable_gaussian_blur()->set_sigma(std::nanf(""));
       },
       C::INVALID_ARGUMENT, "sigma"},
      {"UnknownVariantValue",
       [](auto& r) {
         r.mutable_graph()->mutable_passes(0)->mutable_gaussian_blur()->set_variant(
             static_cast<v1::BlurVariant>(77));
       },
       C::INVALID_ARGUMENT, "variant"},
      {"TooManyPasses",
       [](auto& r) {
         for (int i = 0; i < 20; ++i) {
           AddBlur(r, "p" + std::to_string(i), i ? "t" + std::to_string(i - 1) : "image",
                   "t" + std::to_string(i));
         }
       },
       C::RESOURCE_EXHAUSTED, "max_passes"},
      {"EmptyGraph", [](auto& r) { r.mutable_graph()->clear_passes(); }, C::INVALID_ARGUMENT, ""},
      {"NoOutputs", [](auto& r) { r.mutable_graph()->clear_outputs(); }, C::INVALID_ARGUMENT,
       "output"},
      {"NoInputs", [](auto& r) { r.clear_inputs(); }, C::INVALID_ARGUMENT, "input"},
      {"DuplicateInputName", [](auto& r) { *r.add_inputs() = r.inputs(0); }, C::INVALID_ARGUMENT,
       "duplicate"},
      {"BadCompressionLevel", [](auto& r) { r.mutable_options()->set_png_compression_level(12); },
       C::INVALID_ARGUMENT, "png_compression_level"},
  };
}

class BadInput : public ServerTest, public ::testing::WithParamInterface<BadCase> {};

TEST_P(BadInput, IsRefusedWithCodeAndMessageAndServerStillServes) {
  const std::string png = SamplePng(24, 16);
  v1::ProcessRequest request = RequestFromJson(kBlurGraph, png);
  GetParam().corrupt(request);
  v1::ProcessResponse response;
  grpc::Status status = Process(request, response);
  EXPECT_EQ(status.error_code(), GetParam().code) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr(GetParam().substring));
  EXPECT_FALSE(status.error_message().empty());

  v1::ProcessResponse good;
  status = Process(RequestFromJson(kBlurGraph, png), good);
  EXPECT_TRUE(status.ok()) << status.error_message();
}

INSTANTIATE_TEST_SUITE_P(Cases, BadInput, ::testing::ValuesIn(BadCases()),
                         [](const auto& info) { return info.param.name; });

// Slow on any machine, GPU or not: decoding a 2048×2048 PNG (the test server's pixel limit) takes 60 ms or
// more on one CPU core (the GPU work is small), so a 20 ms deadline or a
// cancel after 10 ms lands while the request is still being decoded. (A
// GPU-bound request is not slow on a real GPU: on the H100 a 512×512 blur of
// radius 300 finished in 25 ms.)
v1::ProcessRequest SlowRequest() {
  static const std::string png = SamplePng(2048, 2048);
  return RequestFromJson(R"({"passes": [{"name": "big", "inputs": ["image"], "outputs": ["out"],
                            "gaussianBlur": {"radius": 8, "variant": "BLUR_VARIANT_EXACT"}}],
                            "outputs": ["out"]})",
                         png);
}

TEST_F(ServerTest, DeadlineExceeded) {
  v1::ProcessResponse response;
  grpc::Status status = Process(SlowRequest(), response, 0.02);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << status.error_message();
  v1::ProcessResponse good;
  EXPECT_TRUE(Process(RequestFromJson(kBlurGraph, SamplePng(8, 8)), good).ok());
}

// Bytes that are not a ProcessRequest at all (the service parses Process's
// messages itself): INVALID_ARGUMENT naming the message type, and the server
// goes on serving.
TEST_F(ServerTest, UnparsableProcessRequestIsInvalidArgument) {
  grpc::GenericStub stub(channel_);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  // Field 2 (inputs), length-delimited, claiming 100 bytes that never come.
  const grpc::Slice garbage(std::string("\x12\x64\x01\x02", 4));
  grpc::ByteBuffer request(&garbage, 1), response;
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, "/rgfx.v1.PostProcess/Process", grpc::StubOptions(), &request,
                 &response, [&done](grpc::Status status) { done.set_value(status); });
  const grpc::Status status = done.get_future().get();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_THAT(status.error_message(), ::testing::HasSubstr("rgfx.v1.ProcessRequest"));
  v1::ProcessResponse good;
  EXPECT_TRUE(Process(RequestFromJson(kBlurGraph, SamplePng(8, 8)), good).ok());
}

// The same on a stream: the garbage message is answered in-band with
// INVALID_ARGUMENT and the stream goes on to answer the next request.
TEST_F(ServerTest, UnparsableStreamMessageIsAnsweredInBand) {
  grpc::GenericStub stub(channel_);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  grpc::CompletionQueue cq;
  auto wait = [&cq](intptr_t tag) {
    void* got = nullptr;
    bool ok = false;
    EXPECT_TRUE(cq.Next(&got, &ok));
    EXPECT_EQ(reinterpret_cast<intptr_t>(got), tag);
    return ok;
  };
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call =
      stub.PrepareCall(&context, "/rgfx.v1.PostProcess/ProcessStream", &cq);
  call->StartCall(reinterpret_cast<void*>(1));
  ASSERT_TRUE(wait(1));
  const grpc::Slice garbage(std::string("\x12\x64\x01\x02", 4));
  call->Write(grpc::ByteBuffer(&garbage, 1), reinterpret_cast<void*>(2));
  ASSERT_TRUE(wait(2));
  v1::ProcessRequest good = RequestFromJson(kBlurGraph, SamplePng(8, 8));
  good.set_id("after-garbage");
  const std::string good_bytes = good.SerializeAsString();
  const grpc::Slice good_slice(good_bytes);
  call->Write(grpc::ByteBuffer(&good_slice, 1), reinterpret_cast<void*>(3));
  ASSERT_TRUE(wait(3));
  call->WritesDone(reinterpret_cast<void*>(4));
  ASSERT_TRUE(wait(4));
  std::vector<v1::ProcessResponse> answers;
  for (intptr_t tag = 5; tag < 7; ++tag) {
    grpc::ByteBuffer bytes;
    call->Read(&bytes, reinterpret_cast<void*>(tag));
    ASSERT_TRUE(wait(tag));
    std::vector<grpc::Slice> slices;
    ASSERT_TRUE(bytes.Dump(&slices).ok());
    std::string flat;
    for (const grpc::Slice& s : slices) flat.append(reinterpret_cast<const char*>(s.begin()), s.size());
    ASSERT_TRUE(answers.emplace_back().ParseFromString(flat));
  }
  grpc::Status status;
  call->Finish(&status, reinterpret_cast<void*>(7));
  ASSERT_TRUE(wait(7));
  EXPECT_TRUE(status.ok()) << status.error_message();
  // Answers come as the requests finish: the error first here, since it
  // needs no work, but find each by its content.
  int errors = 0, outputs = 0;
  for (const v1::ProcessResponse& a : answers) {
    if (a.has_error()) {
      ++errors;
      EXPECT_EQ(a.error().code(), static_cast<int>(absl::StatusCode::kInvalidArgument));
      EXPECT_THAT(a.error().message(), ::testing::HasSubstr("rgfx.v1.ProcessRequest"));
    } else {
      ++outputs;
      EXPECT_EQ(a.id(), "after-garbage");
      EXPECT_EQ(a.outputs_size(), 1);
    }
  }
  EXPECT_EQ(errors, 1);
  EXPECT_EQ(outputs, 1);
  cq.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (cq.Next(&tag, &ok)) {
  }
}

TEST_F(ServerTest, ClientCancellation) {
  grpc::ClientContext context;
  v1::ProcessResponse response;
  absl::Notification done;
  grpc::Status status;
  const v1::ProcessRequest request = SlowRequest();
  NewStub()->async()->Process(&context, &request, &response, [&](grpc::Status s) {
    status = std::move(s);
    done.Notify();
  });
  absl::SleepFor(absl::Milliseconds(10));
  context.TryCancel();
  done.WaitForNotification();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::CANCELLED);
  v1::ProcessResponse good;
  EXPECT_TRUE(Process(RequestFromJson(kBlurGraph, SamplePng(8, 8)), good).ok());
}

TEST(ServerQueue, FullQueueIsRefusedAtOnce) {
  service::ServerOptions options = TestServerOptions();
  options.engine.workers = 1;
  options.config.max_in_flight = 1;
  options.config.max_queued = 1;
  absl::StatusOr<std::unique_ptr<service::Server>> server = service::Server::Start(options);
  ASSERT_TRUE(server.ok()) << server.status();
  // Responses carry a 2048×2048 PNG: over gRPC's default 4 MB receive limit.
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  auto stub = v1::PostProcess::NewStub(grpc::CreateCustomChannel(
      "127.0.0.1:" + std::to_string((*server)->port()), grpc::InsecureChannelCredentials(), args));
  const v1::ProcessRequest request = SlowRequest();
  constexpr int kClients = 6;
  std::vector<grpc::Status> statuses(kClients);
  std::vector<absl::Duration> latency(kClients);
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&, i] {
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(120));
      v1::ProcessResponse response;
      const absl::Time start = absl::Now();
      statuses[i] = stub->Process(&context, request, &response);
      latency[i] = absl::Now() - start;
    });
  }
  for (std::thread& t : clients) t.join();
  int ok = 0, refused = 0;
  for (int i = 0; i < kClients; ++i) {
    if (statuses[i].ok()) ++ok;
    if (statuses[i].error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
      ++refused;
      EXPECT_LT(latency[i], absl::Seconds(2)) << "a refusal must not wait for the queue";
      EXPECT_THAT(statuses[i].error_message(), HasSubstr("max_queued"));
    }
  }
  EXPECT_GE(ok, 1);
  EXPECT_GE(refused, 1);
  EXPECT_EQ(ok + refused, kClients);
  for (const std::string& m : (*server)->engine().TakeValidationMessages()) ADD_FAILURE() << m;
}

}  // namespace
}  // namespace rgfx::testing
