// Stream and connection limits (issue 10): a client that opens ProcessStream,
// sends and never reads holds at most --max_stream_in_flight requests on the
// server while others are served, and lets go of them when it leaves;
// connections with no call are closed after --max_connection_idle_s, and any
// connection after --max_connection_age_s.
#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "client/channel.h"
#include "service/server.h"
#include "tests/e2e/server_fixture.h"

namespace rgfx::testing {
namespace {

constexpr int kWindow = 2;

class StreamLimitsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    service::ServerOptions options = TestServerOptions();
    options.max_stream_in_flight = kWindow;
    options.connections.max_connection_idle = absl::Seconds(1);
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

  // Its own connection (clients are distinct connections to the server).
  static std::shared_ptr<grpc::Channel> NewChannel() {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = client::MakeChannel(
        {.address = "127.0.0.1:" + std::to_string(server_->port())}, args);
    EXPECT_TRUE(channel.ok()) << channel.status();
    return *channel;
  }

  // Waits up to `seconds` for `done`.
  template <typename F>
  static bool WaitFor(F done, double seconds) {
    const absl::Time end = absl::Now() + absl::Seconds(seconds);
    while (!done()) {
      if (absl::Now() > end) return false;
      absl::SleepFor(absl::Milliseconds(10));
    }
    return true;
  }

  static service::Server* server_;
};

service::Server* StreamLimitsTest::server_ = nullptr;

TEST_F(StreamLimitsTest, StreamThatNeverReadsHoldsAtMostItsWindow) {
  service::PostProcessService::StreamCounters& counters = server_->service().stream_counters();
  ASSERT_EQ(counters.requests_held.load(), 0);
  // Large answers (RGBA32F, 4 MB each) so the stream's flow-control window
  // fills and the server's writes stall while the client does not read.
  v1::ProcessRequest request = RequestFromJson(ReadExampleGraph("blur.json"), SamplePng(512, 512));
  request.mutable_options()->set_output_encoding(v1::IMAGE_ENCODING_RGBA32F);
  constexpr int kRequests = 40;

  auto channel = NewChannel();
  auto stub = v1::PostProcess::NewStub(channel);
  grpc::ClientContext context;
  auto stream = stub->ProcessStream(&context);
  std::atomic<int> written{0};
  std::thread writer([&] {
    for (int i = 0; i < kRequests; ++i) {
      request.set_id("never-read-" + std::to_string(i));
      if (!stream->Write(request)) break;  // blocks once flow control says so
      written.fetch_add(1);
    }
  });

  // The server fills its window for this stream and stops there.
  int max_held = 0, max_scheduler = 0;
  auto sample = [&] {
    max_held = std::max(max_held, counters.requests_held.load());
    max_scheduler = std::max(max_scheduler,
                             server_->scheduler().in_flight() + server_->scheduler().queued());
  };
  EXPECT_TRUE(WaitFor([&] { sample(); return counters.requests_held.load() == kWindow; }, 120))
      << "the stream never held " << kWindow << " requests";
  // Its answers are done and unwritten: held stays at the window while the
  // server does not read more.
  for (int i = 0; i < 100; ++i) {
    sample();
    absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_EQ(counters.requests_held.load(), kWindow);
  EXPECT_LE(max_held, kWindow);
  EXPECT_LE(max_scheduler, kWindow);

  // Meanwhile another client is served.
  v1::ProcessRequest small = RequestFromJson(ReadExampleGraph("blur.json"), SamplePng(64, 48));
  v1::ProcessResponse response;
  grpc::ClientContext other;
  other.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  grpc::Status status = v1::PostProcess::NewStub(NewChannel())->Process(&other, small, &response);
  EXPECT_TRUE(status.ok()) << status.error_code() << ": " << status.error_message();
  EXPECT_LE(counters.requests_held.load(), kWindow);
  std::printf("never-reading stream: client wrote %d of %d requests before blocking; server held "
              "at most %d\n", written.load(), kRequests, max_held);

  // The client goes away: the stream and what it held are released.
  context.TryCancel();
  writer.join();
  EXPECT_TRUE(WaitFor([&] { return counters.requests_held.load() == 0; }, 30))
      << counters.requests_held.load() << " requests still held";
  EXPECT_TRUE(WaitFor([&] { return counters.open.load() == 0; }, 30))
      << counters.open.load() << " streams still open";
  EXPECT_TRUE(WaitFor([&] {
    return server_->scheduler().in_flight() + server_->scheduler().queued() == 0;
  }, 30));
}

TEST_F(StreamLimitsTest, StreamThatReadsGetsEveryAnswer) {
  // The window limits what is held, not what a well-behaved stream gets.
  v1::ProcessRequest request = RequestFromJson(ReadExampleGraph("blur.json"), SamplePng(32, 32));
  auto stub = v1::PostProcess::NewStub(NewChannel());
  grpc::ClientContext context;
  auto stream = stub->ProcessStream(&context);
  constexpr int kRequests = 3 * kWindow + 1;
  std::thread writer([&] {
    for (int i = 0; i < kRequests; ++i) {
      request.set_id("read-" + std::to_string(i));
      ASSERT_TRUE(stream->Write(request));
    }
    stream->WritesDone();
  });
  int answers = 0;
  v1::ProcessResponse response;
  while (stream->Read(&response)) {
    EXPECT_FALSE(response.has_error()) << response.error().message();
    ++answers;
  }
  writer.join();
  grpc::Status status = stream->Finish();
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(answers, kRequests);
}

TEST_F(StreamLimitsTest, IdleConnectionsAreClosed) {
  // Connections that made a call and then sit idle are closed by the server
  // (GOAWAY after max_connection_idle): the channels fall back to IDLE.
  constexpr int kConnections = 8;
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  for (int i = 0; i < kConnections; ++i) {
    channels.push_back(NewChannel());
    v1::ListPassesResponse passes;
    grpc::ClientContext context;
    ASSERT_TRUE(v1::PostProcess::NewStub(channels.back())->ListPasses(&context, {}, &passes).ok());
    ASSERT_EQ(channels.back()->GetState(false), GRPC_CHANNEL_READY);
  }
  for (const auto& channel : channels) {
    EXPECT_TRUE(WaitFor([&] { return channel->GetState(false) != GRPC_CHANNEL_READY; }, 10))
        << "a connection idle for 10 s (max idle 1 s) is still open";
  }
}

TEST(ConnectionAgeTest, ConnectionsPastTheirAgeAreClosedAndClientsReconnect) {
  // max_connection_age closes even a busy client's connection (GOAWAY, the
  // grace for calls in flight); the client reconnects on its next call, so a
  // round_robin client would spread over pods that appeared since.
  service::ServerOptions options = TestServerOptions();
  options.connections.max_connection_age = absl::Seconds(1);
  options.connections.max_connection_age_grace = absl::Seconds(5);
  absl::StatusOr<std::unique_ptr<service::Server>> server = service::Server::Start(options);
  ASSERT_TRUE(server.ok()) << server.status();
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = client::MakeChannel(
      {.address = "127.0.0.1:" + std::to_string((*server)->port())}, args);
  ASSERT_TRUE(channel.ok()) << channel.status();
  auto list = [&] {
    v1::ListPassesResponse passes;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    return v1::PostProcess::NewStub(*channel)->ListPasses(&context, {}, &passes);
  };
  ASSERT_TRUE(list().ok());
  ASSERT_EQ((*channel)->GetState(false), GRPC_CHANNEL_READY);
  // Calls every 100 ms keep it from being idle; the age still closes it.
  bool closed = false;
  const absl::Time end = absl::Now() + absl::Seconds(10);
  while (!closed && absl::Now() < end) {
    absl::SleepFor(absl::Milliseconds(100));
    closed = (*channel)->GetState(false) != GRPC_CHANNEL_READY;
    if (!closed) {
      EXPECT_TRUE(list().ok());
    }
  }
  EXPECT_TRUE(closed) << "a connection 10 s old (max age 1 s) is still open";
  grpc::Status again = list();  // a new connection
  EXPECT_TRUE(again.ok()) << again.error_message();
  for (const std::string& message : (*server)->engine().TakeValidationMessages()) {
    ADD_FAILURE() << "Vulkan validation: " << message;
  }
}

}  // namespace
}  // namespace rgfx::testing
