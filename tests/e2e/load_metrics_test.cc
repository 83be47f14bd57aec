// `rgfx load` (client/load.h, called as a library) against an in-process
// server on the default device with metrics on port 0: what the load client
// counted must be what the server's /metrics says (scraped over HTTP and
// parsed), request for request and code for code. And a server that is not
// there must end the load quickly with a clear reason instead of a storm of
// failed calls.
#include <netinet/in.h>
#include <png.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include <google/protobuf/io/coded_stream.h>

#include "absl/time/clock.h"
#include "client/load.h"
#include "client/load_call.h"
#include "client/load_stats.h"
#include "tests/e2e/prometheus_text.h"
#include "tests/e2e/server_fixture.h"
#include "tests/service/png_test_util.h"

namespace rgfx::testing {
namespace {

class LoadMetricsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    service::ServerOptions options = TestServerOptions();
    options.metrics_listen = "127.0.0.1:0";
    absl::StatusOr<std::unique_ptr<service::Server>> server = service::Server::Start(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = server->release();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void TearDown() override {
    for (const std::string& message : server_->engine().TakeValidationMessages()) {
      ADD_FAILURE() << "Vulkan validation: " << message;
    }
  }

  static client::ChannelFactory Channels() {
    return [](int index) {
      grpc::ChannelArguments args;
      args.SetMaxReceiveMessageSize(-1);
      args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
      args.SetInt("rgfx.load_connection", index);
      return grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(server_->port()),
                                       grpc::InsecureChannelCredentials(), args);
    };
  }

  static Scrape MustScrape() {
    absl::StatusOr<Scrape> scrape = ScrapeMetrics(server_->metrics_port());
    EXPECT_TRUE(scrape.ok()) << scrape.status();
    return scrape.ok() ? *std::move(scrape) : Scrape({});
  }

  // The client holds every answer before the server's jobs have finished
  // their bookkeeping (the response goes out first), so a scrape at once can
  // still count a request in flight: scrape until nothing is (10 s at most).
  static Scrape ScrapeWhenIdle() {
    Scrape scrape = MustScrape();
    for (const absl::Time give_up = absl::Now() + absl::Seconds(10);
         (scrape.Sum("rgfx_in_flight") != 0 || scrape.Sum("rgfx_queued") != 0) &&
         absl::Now() < give_up;) {
      absl::SleepFor(absl::Milliseconds(20));
      scrape = MustScrape();
    }
    return scrape;
  }

  static service::Server* server_;
};

service::Server* LoadMetricsTest::server_ = nullptr;

// The 33x17 sample as raw RGBA8 (alpha 255), the same pixels as the PNG.
v1::ProcessRequest RawRequest(const std::string& graph) {
  PngSpec spec;
  spec.color_type = PNG_COLOR_TYPE_RGB;
  spec.bit_depth = 8;
  spec.width = 33;
  spec.height = 17;
  v1::ProcessRequest request = RequestFromJson(graph, SamplePng(33, 17));
  v1::Image& image = *request.mutable_inputs(0);
  const TestPng png = MakeTestPng(spec);  // the same pixels SamplePng encodes
  const std::string rgba(reinterpret_cast<const char*>(png.expected.data()), png.expected.size());
  image.set_encoding(v1::IMAGE_ENCODING_RGBA8);
  image.set_width(33);
  image.set_height(17);
  image.set_data(rgba);
  request.mutable_options()->set_output_encoding(v1::IMAGE_ENCODING_RGBA8);
  return request;
}

// A PNG whose header claims 100000x100000 pixels: refused from the header.
v1::ProcessRequest HugeRequest(const std::string& graph) {
  v1::ProcessRequest request = RequestFromJson(graph, SamplePng(33, 17));
  std::string& png = *request.mutable_inputs(0)->mutable_data();
  const size_t ihdr = ChunkDataOffset(png, "IHDR");
  for (int i = 0; i < 4; ++i) {
    png[ihdr + i] = static_cast<char>(100000 >> (24 - 8 * i));
    png[ihdr + 4 + i] = static_cast<char>(100000 >> (24 - 8 * i));
  }
  FixChunkCrc(png, "IHDR");
  return request;
}

TEST_F(LoadMetricsTest, ClientCountsAgreeWithServerMetrics) {
  ASSERT_GT(server_->metrics_port(), 0);
  const std::string graph = ReadExampleGraph("blur.json");
  v1::ProcessRequest bad_radius = RequestFromJson(graph, SamplePng(33, 17));
  bad_radius.mutable_graph()->mutable_passes(0)->mutable_gaussian_blur()->set_radius(-1);
  // Rotated in this order: 40 requests are 10 of each.
  const std::vector<v1::ProcessRequest> requests = {
      RequestFromJson(graph, SamplePng(33, 17)), RawRequest(graph), HugeRequest(graph),
      bad_radius};
  uint64_t bytes_per_round = 0;
  for (const v1::ProcessRequest& r : requests) bytes_per_round += r.ByteSizeLong();

  const Scrape before = MustScrape();
  client::LoadOptions options;
  options.concurrency = 4;
  options.connections = 2;
  options.requests = 40;
  options.duration_seconds = 0;
  const client::LoadResult result = client::RunLoad(Channels(), requests, options);
  const Scrape after = ScrapeWhenIdle();
  auto delta = [&](const std::string& name, const std::map<std::string, std::string>& labels = {}) {
    return after.Sum(name, labels) - before.Sum(name, labels);
  };

  // The client's own account.
  EXPECT_EQ(result.stopped, "");
  EXPECT_EQ(result.count(), 40);
  EXPECT_EQ(result.ok(), 20);
  EXPECT_EQ(result.codes.at("INVALID_ARGUMENT"), 10);
  EXPECT_EQ(result.codes.at("RESOURCE_EXHAUSTED"), 10);
  EXPECT_EQ(result.codes.size(), 3u);
  EXPECT_EQ(result.bytes_sent, 10 * bytes_per_round);
  // Stage times come from the 20 OK answers, read without their images.
  EXPECT_EQ(result.stages_ms.at("total").size(), 20u);

  // The server's, exactly the same.
  const std::map<std::string, std::string> process = {{"method", "Process"}};
  EXPECT_EQ(delta("rgfx_requests_total", process), 40);
  for (const auto& [code, count] : result.codes) {
    EXPECT_EQ(delta("rgfx_requests_total", {{"method", "Process"}, {"code", code}}), count)
        << code;
  }
  EXPECT_EQ(delta("rgfx_received_bytes_total", process), static_cast<double>(result.bytes_sent));
  EXPECT_EQ(delta("rgfx_sent_bytes_total", process), static_cast<double>(result.bytes_received));

  // Latency: one server observation per client answer, and each request's
  // server time lies inside the client's, so at every bucket boundary the
  // server has at least as many requests at or below it as the client.
  EXPECT_EQ(delta("rgfx_request_seconds_count", process), result.count());
  int buckets = 0;
  for (const MetricSample& s : after.samples()) {
    if (s.name != "rgfx_request_seconds_bucket" || s.labels.at("method") != "Process") continue;
    const std::string le = s.labels.at("le");
    const double bound = le == "+Inf" ? HUGE_VAL : std::stod(le);
    int64_t client_at_or_below = 0;
    for (double ms : result.latency_ms) client_at_or_below += ms / 1e3 <= bound ? 1 : 0;
    const double server_at_or_below =
        delta("rgfx_request_seconds_bucket", {{"method", "Process"}, {"le", le}});
    EXPECT_GE(server_at_or_below, client_at_or_below) << "le=" << le;
    ++buckets;
  }
  EXPECT_GT(buckets, 10);
  // The client's median lies in or above the server's median bucket.
  const double client_p50_s = client::Percentile(
      [&] { std::vector<double> v = result.latency_ms; std::sort(v.begin(), v.end()); return v; }(),
      0.5) / 1e3;
  EXPECT_GT(client_p50_s, 0);
  EXPECT_GE(delta("rgfx_request_seconds_sum", process) + 1e-9, 0);
  EXPECT_LE(delta("rgfx_request_seconds_sum", process),
            std::accumulate(result.latency_ms.begin(), result.latency_ms.end(), 0.0) / 1e3);

  // Per-pass GPU time: the blur ran in the 20 OK requests; the server's sum
  // of its GPU seconds is the sum the client read from the same responses.
  double client_blur_ms = 0;
  int64_t client_blur_count = 0;
  for (const auto& [key, samples] : result.pass_gpu_ms) {
    if (key.find("(gaussian_blur/") == std::string::npos) continue;
    for (double ms : samples) client_blur_ms += ms;
    client_blur_count += static_cast<int64_t>(samples.size());
  }
  if (server_->engine().caps().timestamps_supported) {
    EXPECT_EQ(client_blur_count, 20);
    EXPECT_EQ(delta("rgfx_pass_gpu_seconds_count", {{"type", "gaussian_blur"}}), 20);
    EXPECT_NEAR(delta("rgfx_pass_gpu_seconds_sum", {{"type", "gaussian_blur"}}),
                client_blur_ms / 1e3, 1e-9 * std::max(1.0, client_blur_ms));
  }
  // Stage histograms: one observation per admitted request (those refused
  // from the header are admitted first, then refused in decode).
  EXPECT_GE(delta("rgfx_decode_seconds_count"), 20);
  EXPECT_LE(delta("rgfx_decode_seconds_count"), 40);
  EXPECT_EQ(delta("rgfx_queue_seconds_count"), delta("rgfx_encode_seconds_count"));

  // Nothing left in flight (within the wait above); the gauges are read at
  // scrape time.
  EXPECT_EQ(after.Sum("rgfx_in_flight"), 0);
  EXPECT_EQ(after.Sum("rgfx_queued"), 0);
  EXPECT_EQ(after.Sum("rgfx_device_healthy", {{"device", "0"}}), 1);
  EXPECT_TRUE(after.Has("rgfx_gpu_memory_bytes"));
  EXPECT_TRUE(after.Has("rgfx_gpu_submissions_total"));
}

// The load client's call (generic stub, response read without its images)
// against the generated stub's, on the same request: the same outputs by
// size, the same graph, passes and statistics.
TEST_F(LoadMetricsTest, LoadCallSeesWhatTheGeneratedStubParses) {
  const v1::ProcessRequest request = RawRequest(ReadExampleGraph("blur.json"));
  const std::shared_ptr<grpc::Channel> channel = Channels()(0);
  auto stub = v1::PostProcess::NewStub(channel);
  auto stub_call = [&] {
    grpc::ClientContext context;
    v1::ProcessResponse response;
    const grpc::Status status = stub->Process(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  };
  stub_call();  // the compiled graph cached: both calls below are hits
  const v1::ProcessResponse full = stub_call();

  absl::StatusOr<client::SerializedRequest> serialized = client::SerializeRequest(request);
  ASSERT_TRUE(serialized.ok()) << serialized.status();
  client::ProcessCaller caller(channel);
  grpc::ClientContext context;
  client::ResponseSummary summary;
  const grpc::Status status = caller.Call(&context, *serialized, &summary);
  ASSERT_TRUE(status.ok()) << status.error_message();

  ASSERT_EQ(full.outputs_size(), 1);
  EXPECT_EQ(full.outputs(0).data().size(), 33u * 17 * 4);
  EXPECT_EQ(summary.outputs, 1);
  // The pixels are the same on every run, so the outputs field's size too:
  // tag, length, image.
  const size_t image_bytes = full.outputs(0).ByteSizeLong();
  EXPECT_EQ(summary.output_bytes,
            1 + google::protobuf::io::CodedOutputStream::VarintSize64(image_bytes) + image_bytes);
  EXPECT_EQ(summary.message_bytes, summary.output_bytes + summary.rest.ByteSizeLong());
  EXPECT_EQ(summary.rest.outputs_size(), 0);
  EXPECT_FALSE(summary.rest.id().empty());
  EXPECT_EQ(summary.rest.device(), full.device());
  EXPECT_EQ(summary.rest.graph_hash(), full.graph_hash());
  EXPECT_EQ(summary.rest.stats().SerializeAsString(), full.stats().SerializeAsString());
  ASSERT_EQ(summary.rest.passes_size(), full.passes_size());
  for (int i = 0; i < full.passes_size(); ++i) {
    EXPECT_EQ(summary.rest.passes(i).pass(), full.passes(i).pass());
    EXPECT_EQ(summary.rest.passes(i).type(), full.passes(i).type());
    EXPECT_EQ(summary.rest.passes(i).variant(), full.passes(i).variant());
    EXPECT_EQ(summary.rest.passes(i).has_gpu_ns(), full.passes(i).has_gpu_ns());
  }
  EXPECT_GT(summary.rest.stages().total_ns(), 0);
  EXPECT_FALSE(summary.rest.has_error());
}

TEST_F(LoadMetricsTest, WarmupAnswersAreLeftOut) {
  const std::vector<v1::ProcessRequest> requests = {
      RequestFromJson(ReadExampleGraph("blur.json"), SamplePng(33, 17))};
  const Scrape before = MustScrape();
  client::LoadOptions options;
  options.concurrency = 2;
  options.requests = 12;
  options.warmup_requests = 5;
  const client::LoadResult result = client::RunLoad(Channels(), requests, options);
  const Scrape after = MustScrape();
  EXPECT_EQ(result.sent, 12);
  EXPECT_EQ(result.warmup_skipped, 5);
  EXPECT_EQ(result.count(), 7);
  EXPECT_EQ(result.ok(), 7);
  EXPECT_EQ(after.Sum("rgfx_requests_total", {{"method", "Process"}, {"code", "OK"}}) -
                before.Sum("rgfx_requests_total", {{"method", "Process"}, {"code", "OK"}}),
            12);
}

TEST_F(LoadMetricsTest, OpenLoopSendsAtTheGivenRate) {
  const std::vector<v1::ProcessRequest> requests = {
      RequestFromJson(ReadExampleGraph("blur.json"), SamplePng(33, 17))};
  client::LoadOptions options;
  options.concurrency = 4;
  options.requests = 0;
  options.rps = 20;
  options.duration_seconds = 1;
  const client::LoadResult result = client::RunLoad(Channels(), requests, options);
  // Due at k / 20 s for k = 0..19: exactly 20 fall inside one second.
  EXPECT_EQ(result.sent, 20);
  EXPECT_EQ(result.ok(), 20);
}

TEST_F(LoadMetricsTest, StreamMessagesCountOneEachWithTheirInBandCode) {
  const std::string graph = ReadExampleGraph("blur.json");
  v1::ProcessRequest bad = RequestFromJson(graph, SamplePng(33, 17));
  bad.mutable_graph()->mutable_passes(0)->mutable_gaussian_blur()->set_radius(-1);
  const std::vector<v1::ProcessRequest> requests = {RequestFromJson(graph, SamplePng(33, 17)), bad,
                                                    RequestFromJson(graph, SamplePng(17, 33))};
  const Scrape before = MustScrape();
  auto stub = v1::PostProcess::NewStub(Channels()(0));
  grpc::ClientContext context;
  auto stream = stub->ProcessStream(&context);
  uint64_t bytes_in = 0;
  for (const v1::ProcessRequest& r : requests) {
    ASSERT_TRUE(stream->Write(r));
    bytes_in += r.ByteSizeLong();
  }
  stream->WritesDone();
  uint64_t bytes_out = 0;
  int ok = 0, invalid = 0;
  for (v1::ProcessResponse response; stream->Read(&response);) {
    bytes_out += response.ByteSizeLong();
    (response.has_error() ? invalid : ok)++;
    if (response.has_error()) {
      EXPECT_EQ(response.error().code(), 3);
    }
  }
  ASSERT_TRUE(stream->Finish().ok());
  EXPECT_EQ(ok, 2);
  EXPECT_EQ(invalid, 1);
  const Scrape after = ScrapeWhenIdle();
  auto delta = [&](const std::string& name, const std::map<std::string, std::string>& labels) {
    return after.Sum(name, labels) - before.Sum(name, labels);
  };
  EXPECT_EQ(delta("rgfx_requests_total", {{"method", "ProcessStream"}, {"code", "OK"}}), 2);
  EXPECT_EQ(delta("rgfx_requests_total", {{"method", "ProcessStream"}, {"code", "INVALID_ARGUMENT"}}),
            1);
  EXPECT_EQ(delta("rgfx_received_bytes_total", {{"method", "ProcessStream"}}),
            static_cast<double>(bytes_in));
  EXPECT_EQ(delta("rgfx_sent_bytes_total", {{"method", "ProcessStream"}}),
            static_cast<double>(bytes_out));
}

TEST_F(LoadMetricsTest, BusyMetricsPortFailsStartNamingIt) {
  service::ServerOptions options = TestServerOptions();
  options.metrics_listen = "127.0.0.1:" + std::to_string(server_->metrics_port());
  absl::StatusOr<std::unique_ptr<service::Server>> second = service::Server::Start(options);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(second.status().message().find("metrics: cannot listen on " + options.metrics_listen),
            std::string::npos)
      << second.status();
}

// A port nothing listens on: bound, then closed.
int RefusingPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  socklen_t length = sizeof(address);
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  return ntohs(address.sin_port);
}

TEST(LoadRefused, StopsQuicklyInsteadOfSpinning) {
  const int port = RefusingPort();
  client::LoadOptions options;
  options.concurrency = 16;
  options.requests = 0;
  options.duration_seconds = 60;
  options.give_up_seconds = 1;
  v1::ProcessRequest request;
  request.add_inputs()->set_name("image");
  const auto start = std::chrono::steady_clock::now();
  const client::LoadResult result = client::RunLoad(
      [port](int) {
        return grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                                   grpc::InsecureChannelCredentials());
      },
      {request}, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Stopped by the give-up rule (1 s), far from the 60 s duration.
  EXPECT_LT(seconds, 20);
  EXPECT_NE(result.stopped.find("UNAVAILABLE"), std::string::npos) << result.stopped;
  EXPECT_EQ(result.ok(), 0);
  EXPECT_EQ(result.codes.at("UNAVAILABLE"), result.count());
  // Backing off from 10 ms, doubling, each caller makes about 7 calls in the
  // first second; a busy loop would make thousands.
  EXPECT_LT(result.sent, 16 * 15) << "calls: " << result.sent;
}

}  // namespace
}  // namespace rgfx::testing
