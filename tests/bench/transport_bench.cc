// rgfx-transport-bench: what moving a request and its response through gRPC
// costs in CPU, without the service or a GPU: an in-process server whose
// generic handler answers every call with a fixed response (sent by
// reference, as the service sends images), and callers on the same process
// sending a fixed request (serialized once, as `rgfx load` does). Both ends
// share the machine as in the throughput runs (docs/PERFORMANCE.md), so the
// CPU-ms per request printed is client and server together, from
// getrusage over the timed part. Channel arguments can be set on either end
// to compare transport settings in one run:
//   rgfx-transport-bench --configs "default;grpc.http2.max_frame_size=16777215"
// Each config is "name=value,name=value" (integer values), applied to both
// the server and the client; configs are run in turn, --rounds times.
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/notification.h"

ABSL_FLAG(int64_t, request_bytes, 8294400, "bytes per request (1080p RGBA8: 8294400)");
ABSL_FLAG(int64_t, response_bytes, 8294400, "bytes per response");
ABSL_FLAG(int, callers, 8, "concurrent callers");
ABSL_FLAG(int, connections, 4, "channels (one connection each)");
ABSL_FLAG(double, seconds, 5, "timed seconds per config and round");
ABSL_FLAG(int, rounds, 3, "times each config runs (alternating)");
ABSL_FLAG(std::string, configs, "default",
          "';'-separated configs of 'name=value,...' channel arguments, or 'default'");

namespace rgfx {
namespace {

using Args = std::vector<std::pair<std::string, int>>;

Args ParseConfig(const std::string& text) {
  Args args;
  if (text == "default") return args;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    std::pair<std::string, std::string> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
    int value = 0;
    if (!absl::SimpleAtoi(kv.second, &value)) {
      std::fprintf(stderr, "bad channel argument '%s'\n", std::string(item).c_str());
      std::exit(2);
    }
    args.emplace_back(kv.first, value);
  }
  return args;
}

// A buffer of `bytes` in 1 MiB slices that all point into one static block.
grpc::ByteBuffer Message(int64_t bytes) {
  static const std::string block(1 << 20, 'x');
  std::vector<grpc::Slice> slices;
  for (int64_t at = 0; at < bytes; at += static_cast<int64_t>(block.size())) {
    const size_t n = static_cast<size_t>(std::min<int64_t>(bytes - at, block.size()));
    slices.emplace_back(block.data(), n, grpc::Slice::STATIC_SLICE);
  }
  return grpc::ByteBuffer(slices.data(), slices.size());
}

class EchoSized final : public grpc::CallbackGenericService {
 public:
  explicit EchoSized(int64_t response_bytes) : response_(Message(response_bytes)) {}
  grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext*) override {
    return new Call(response_);
  }

 private:
  class Call final : public grpc::ServerGenericBidiReactor {
   public:
    explicit Call(const grpc::ByteBuffer& response) : response_(response) { StartRead(&request_); }
    void OnReadDone(bool ok) override {
      if (!ok) {
        Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no request"));
        return;
      }
      StartWriteAndFinish(&response_, grpc::WriteOptions(), grpc::Status::OK);
    }
    void OnDone() override { delete this; }

   private:
    grpc::ByteBuffer request_;
    grpc::ByteBuffer response_;
  };
  grpc::ByteBuffer response_;
};

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

struct Result {
  int64_t calls = 0;
  double seconds = 0;
  double cpu_seconds = 0;
};

Result RunConfig(const Args& args) {
  EchoSized service(absl::GetFlag(FLAGS_response_bytes));
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterCallbackGenericService(&service);
  builder.SetMaxReceiveMessageSize(-1);
  builder.SetMaxSendMessageSize(-1);
  for (const auto& [name, value] : args) builder.AddChannelArgument(name, value);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();

  std::vector<std::shared_ptr<grpc::Channel>> channels;
  for (int i = 0; i < absl::GetFlag(FLAGS_connections); ++i) {
    grpc::ChannelArguments ca;
    ca.SetMaxReceiveMessageSize(-1);
    ca.SetMaxSendMessageSize(-1);
    ca.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    for (const auto& [name, value] : args) ca.SetInt(name, value);
    channels.push_back(grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port),
                                                 grpc::InsecureChannelCredentials(), ca));
  }
  const grpc::ByteBuffer request = Message(absl::GetFlag(FLAGS_request_bytes));
  std::atomic<bool> timing{false}, stop{false};
  std::atomic<int64_t> calls{0};
  std::vector<std::thread> callers;
  for (int i = 0; i < absl::GetFlag(FLAGS_callers); ++i) {
    callers.emplace_back([&, i] {
      grpc::GenericStub stub(channels[static_cast<size_t>(i) % channels.size()]);
      while (!stop) {
        grpc::ClientContext context;
        context.set_wait_for_ready(true);
        grpc::ByteBuffer response;
        absl::Notification done;
        grpc::Status status;
        stub.UnaryCall(&context, "/bench/Echo", grpc::StubOptions(), &request, &response,
                       [&](grpc::Status s) {
                         status = std::move(s);
                         done.Notify();
                       });
        done.WaitForNotification();
        if (!status.ok()) {
          std::fprintf(stderr, "call failed: %s\n", status.error_message().c_str());
          std::exit(1);
        }
        if (timing) ++calls;
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::seconds(1));  // connect and warm up
  const double cpu0 = CpuSeconds();
  const auto t0 = std::chrono::steady_clock::now();
  timing = true;
  std::this_thread::sleep_for(std::chrono::duration<double>(absl::GetFlag(FLAGS_seconds)));
  timing = false;
  Result r;
  r.calls = calls.load();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.cpu_seconds = CpuSeconds() - cpu0;
  stop = true;
  for (std::thread& t : callers) t.join();
  server->Shutdown();
  return r;
}

int Run() {
  const std::vector<std::string> configs =
      absl::StrSplit(absl::GetFlag(FLAGS_configs), ';', absl::SkipEmpty());
  std::printf("transport: %lld-byte requests, %lld-byte responses, %d callers on %d connections, "
              "%.0f s per run; CPU-ms per call = client + server (getrusage)\n",
              static_cast<long long>(absl::GetFlag(FLAGS_request_bytes)),
              static_cast<long long>(absl::GetFlag(FLAGS_response_bytes)),
              absl::GetFlag(FLAGS_callers), absl::GetFlag(FLAGS_connections),
              absl::GetFlag(FLAGS_seconds));
  for (int round = 0; round < absl::GetFlag(FLAGS_rounds); ++round) {
    for (const std::string& config : configs) {
      const Result r = RunConfig(ParseConfig(config));
      std::printf("  round %d  %-60s %8.1f calls/s  %7.3f CPU-ms/call\n", round + 1,
                  config.c_str(), r.calls / r.seconds,
                  r.calls > 0 ? 1e3 * r.cpu_seconds / static_cast<double>(r.calls) : 0.0);
    }
  }
  return 0;
}

}  // namespace
}  // namespace rgfx

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return rgfx::Run();
}
