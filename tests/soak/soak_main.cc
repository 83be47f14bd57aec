// rgfx-soak: drives an rgfx server for a given time from many callers with
// mixed graphs and sizes, a share of bad inputs, cancellations and short
// deadlines, and checks that it stays correct and bounded (issue 10):
//  - zero wrong bytes: every OK answer equals the answer to the same request
//    sent alone before the load (computed once per (graph, image), serially);
//  - zero unexpected status codes: bad inputs INVALID_ARGUMENT or
//    RESOURCE_EXHAUSTED (each kind its own), short deadlines
//    DEADLINE_EXCEEDED (or OK in time), cancels CANCELLED (or OK in time),
//    everything else OK;
//  - server RSS growth < 5% after warm-up, descriptors back to their level
//    after idle, GPU memory back to its floor after idle (gauge
//    rgfx_gpu_memory_bytes on the server's /metrics, when it has one).
// Writes soak.csv (time, phase, RSS, fds, GPU memory, requests/s) and
// soak.svg (RSS and GPU memory over time) to --out_dir. Links only the API
// (rgfx_proto), gRPC and libpng: it runs anywhere the server binary runs.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <future>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "rgfx/v1/post_process.grpc.pb.h"
#include "tests/soak/connection_watch.h"
#include "tests/soak/soak_inputs.h"
#include "tests/soak/soak_report.h"
#include "tests/soak/soak_server.h"

ABSL_FLAG(int, duration_s, 60, "how long the load runs, warm-up included");
ABSL_FLAG(std::string, server, "", "address of a running server; empty: start --server_bin");
ABSL_FLAG(int, server_pid, 0, "with --server: its process id, for RSS and descriptors");
ABSL_FLAG(std::string, metrics, "", "with --server: its --metrics_listen address");
ABSL_FLAG(std::string, server_bin, "", "rgfx-server to start (default: beside rgfx-soak)");
ABSL_FLAG(std::vector<std::string>, server_args, {}, "more flags for the started server");
ABSL_FLAG(std::string, graphs_dir, "examples/graphs", "the *.json graphs to send");
ABSL_FLAG(std::vector<std::string>, size, std::vector<std::string>({"96x64", "160x120"}),
          "image sizes, WxH[,WxH...]");
ABSL_FLAG(int, callers, 32, "concurrent callers");
ABSL_FLAG(double, bad_fraction, 0.05, "share of bad inputs");
ABSL_FLAG(double, cancel_fraction, 0.03, "share of requests cancelled after 0-10 ms");
ABSL_FLAG(double, deadline_fraction, 0.03, "share of requests with a 1-20 ms deadline");
ABSL_FLAG(int, warmup_s, -1, "seconds before the RSS baseline; -1: a fifth of the run, <= 60");
ABSL_FLAG(int, idle_s, -1, "seconds of idle after the load; -1: release time + 10 s");
ABSL_FLAG(int, idle_release_s, 5, "--memory_idle_release_s for a started server");
ABSL_FLAG(std::string, out_dir, "soak-out", "where soak.csv, soak.svg and server.log go");
ABSL_FLAG(int, sample_ms, 1000, "sampling period");
ABSL_FLAG(uint64_t, seed, 1, "random seed of the callers");

namespace rgfx::soak {
namespace {

using Clock = std::chrono::steady_clock;
// gRPC deadlines take the system clock.
using Wall = std::chrono::system_clock;
constexpr char kGpuMetric[] = "rgfx_gpu_memory_bytes";

struct Case {
  std::string label;  // "bloom/160x120-png8"
  v1::ProcessRequest request;
  std::string expected;  // canonical outputs of the request sent alone
};

std::string Canonical(const v1::ProcessResponse& response) {
  std::string out;
  for (const v1::Image& o : response.outputs()) {
    absl::StrAppend(&out, o.name(), "|", o.encoding(), "|", o.width(), "x", o.height(), "|",
                    o.data().size(), "|", o.data());
  }
  return out;
}

struct Tally {
  std::atomic<int64_t> ok{0}, wrong_bytes{0}, bad_refused{0}, cancelled{0}, deadline{0},
      finished_in_time{0}, unexpected{0}, completed{0};
  std::mutex mu;
  std::vector<std::string> examples;  // first unexpected answers
  void Unexpected(const std::string& what) {
    ++unexpected;
    std::lock_guard<std::mutex> lock(mu);
    if (examples.size() < 20) examples.push_back(what);
  }
};

class Soak {
 public:
  Soak(std::vector<std::shared_ptr<grpc::Channel>> channels, std::vector<Case> cases,
       uint64_t max_pixels)
      : channels_(std::move(channels)), cases_(std::move(cases)), max_pixels_(max_pixels) {}

  void Caller(int index, Clock::time_point end) {
    auto stub = v1::PostProcess::NewStub(channels_[index % channels_.size()]);
    std::mt19937_64 rng(absl::GetFlag(FLAGS_seed) * 1000003 + index);
    std::uniform_real_distribution<double> unit(0, 1);
    const double bad = absl::GetFlag(FLAGS_bad_fraction);
    const double cancel = bad + absl::GetFlag(FLAGS_cancel_fraction);
    const double deadline = cancel + absl::GetFlag(FLAGS_deadline_fraction);
    while (Clock::now() < end) {
      const Case& c = cases_[rng() % cases_.size()];
      const double u = unit(rng);
      grpc::ClientContext context;
      // A connection attempt that fails (seen once in CI on a loaded 2-core
      // machine: 'failed to connect to all addresses') makes calls wait for
      // the reconnect instead of failing at once during gRPC's backoff: no
      // request was sent, so nothing was lost. A call already sent on a
      // connection that breaks still fails (UNAVAILABLE) and counts as
      // unexpected; ConnectionWatch counts the failed attempts.
      context.set_wait_for_ready(true);
      v1::ProcessResponse response;
      grpc::Status status;
      if (u < bad) {
        const auto kind = static_cast<BadKind>(rng() % kBadKinds);
        BadRequest b = MakeBad(kind, c.request, max_pixels_);
        context.set_deadline(Wall::now() + std::chrono::seconds(120));
        status = stub->Process(&context, b.request, &response);
        if (status.error_code() == b.expected_code && !status.error_message().empty()) {
          ++tally_.bad_refused;
        } else {
          tally_.Unexpected(absl::StrCat(BadKindName(kind), " on ", c.label, ": got ",
                                         status.error_code(), " '", status.error_message(),
                                         "', expected ", b.expected_code));
        }
      } else if (u < cancel) {
        std::promise<grpc::Status> done;
        stub->async()->Process(&context, &c.request, &response,
                               [&done](grpc::Status s) { done.set_value(std::move(s)); });
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % 10000));
        context.TryCancel();
        status = done.get_future().get();
        Judge(c, status, response, grpc::StatusCode::CANCELLED, tally_.cancelled, "cancel");
      } else if (u < deadline) {
        context.set_deadline(Wall::now() + std::chrono::milliseconds(1 + rng() % 20));
        status = stub->Process(&context, c.request, &response);
        Judge(c, status, response, grpc::StatusCode::DEADLINE_EXCEEDED, tally_.deadline,
              "short deadline");
      } else {
        context.set_deadline(Wall::now() + std::chrono::seconds(120));
        status = stub->Process(&context, c.request, &response);
        if (status.ok()) {
          Compare(c, response);
        } else {
          tally_.Unexpected(absl::StrCat(c.label, ": got ", status.error_code(), " '",
                                         status.error_message(), "', expected OK"));
        }
      }
      ++tally_.completed;
    }
  }

  Tally& tally() { return tally_; }

 private:
  void Compare(const Case& c, const v1::ProcessResponse& response) {
    if (Canonical(response) == c.expected) {
      ++tally_.ok;
    } else {
      ++tally_.wrong_bytes;
      tally_.Unexpected(absl::StrCat(c.label, ": OK but the outputs differ from the request "
                                              "sent alone"));
    }
  }
  // A cancel or a short deadline: its own code, or OK when the server was
  // faster (then the bytes must be right).
  void Judge(const Case& c, const grpc::Status& status, const v1::ProcessResponse& response,
             grpc::StatusCode expected, std::atomic<int64_t>& counter, const char* what) {
    if (status.error_code() == expected) {
      ++counter;
    } else if (status.ok()) {
      ++tally_.finished_in_time;
      Compare(c, response);
    } else {
      tally_.Unexpected(absl::StrCat(what, " on ", c.label, ": got ", status.error_code(), " '",
                                     status.error_message(), "', expected ", expected));
    }
  }

  std::vector<std::shared_ptr<grpc::Channel>> channels_;
  std::vector<Case> cases_;
  uint64_t max_pixels_;
  Tally tally_;
};

std::shared_ptr<grpc::Channel> NewChannel(const std::string& address, int index) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);  // a connection per channel
  args.SetInt("rgfx.soak.channel", index);
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
}

std::string DefaultServerBin(const char* argv0) {
  const std::filesystem::path self = std::filesystem::absolute(argv0).parent_path();
  for (const auto& p : {self / "rgfx-server", self / "../../service/rgfx-server"}) {
    if (std::filesystem::exists(p)) return std::filesystem::weakly_canonical(p).string();
  }
  return "rgfx-server";
}

int Run(const char* argv0) {
  const int duration_s = absl::GetFlag(FLAGS_duration_s);
  const std::string out_dir = absl::GetFlag(FLAGS_out_dir);
  std::filesystem::create_directories(out_dir);

  absl::StatusOr<std::vector<SoakGraph>> graphs = LoadGraphs(absl::GetFlag(FLAGS_graphs_dir));
  if (!graphs.ok()) {
    std::fprintf(stderr, "soak: %s\n", graphs.status().ToString().c_str());
    return 2;
  }
  std::vector<SoakImage> images;
  uint32_t seed = 1;
  for (const std::string& size : absl::GetFlag(FLAGS_size)) {
    std::vector<std::string> wh = absl::StrSplit(size, 'x');
    uint32_t w = 0, h = 0;
    if (wh.size() != 2 || !absl::SimpleAtoi(wh[0], &w) || !absl::SimpleAtoi(wh[1], &h) || !w || !h) {
      std::fprintf(stderr, "soak: --size '%s' is not WxH\n", size.c_str());
      return 2;
    }
    for (ImageKind kind : {ImageKind::kPng8, ImageKind::kPng16, ImageKind::kRaw8}) {
      images.push_back(MakeImage(w, h, kind, seed++));
    }
  }

  // The server: started here, or given.
  std::unique_ptr<ServerProcess> process;
  std::string address = absl::GetFlag(FLAGS_server);
  std::string metrics = absl::GetFlag(FLAGS_metrics);
  pid_t pid = absl::GetFlag(FLAGS_server_pid);
  int idle_s = absl::GetFlag(FLAGS_idle_s);
  std::string gpu_skip;
  if (address.empty()) {
    const std::string bin = absl::GetFlag(FLAGS_server_bin).empty()
                                ? DefaultServerBin(argv0) : absl::GetFlag(FLAGS_server_bin);
    std::vector<std::string> args = absl::GetFlag(FLAGS_server_args);
    if (ServerHasFlag(bin, "memory_idle_release_s")) {
      args.push_back(absl::StrCat("--memory_idle_release_s=", absl::GetFlag(FLAGS_idle_release_s)));
    }
    if (ServerHasFlag(bin, "metrics_listen")) {
      metrics = absl::StrCat("127.0.0.1:", FreePort());
      args.push_back(absl::StrCat("--metrics_listen=", metrics));
    } else {
      gpu_skip = "skipped: this rgfx-server has no --metrics_listen flag, so no "
                 "rgfx_gpu_memory_bytes gauge to read";
    }
    auto started = ServerProcess::Start(bin, args, out_dir + "/server.log");
    if (!started.ok()) {
      std::fprintf(stderr, "soak: %s\n", started.status().ToString().c_str());
      return 2;
    }
    process = *std::move(started);
    address = absl::StrCat("127.0.0.1:", process->port());
    pid = process->pid();
    if (idle_s < 0) idle_s = absl::GetFlag(FLAGS_idle_release_s) + 10;
    std::printf("soak: started %s (pid %d) on %s\n", bin.c_str(), pid, address.c_str());
  }
  if (idle_s < 0) idle_s = 70;  // a server of ours releases after 60 s idle by default
  if (metrics.empty() && gpu_skip.empty()) {
    gpu_skip = "skipped: no --metrics address given for the server";
  }

  std::vector<std::shared_ptr<grpc::Channel>> channels;
  for (int i = 0; i < 4; ++i) channels.push_back(NewChannel(address, i));
  auto stub = v1::PostProcess::NewStub(channels[0]);
  v1::DeviceInfo info;
  {
    grpc::ClientContext context;
    context.set_wait_for_ready(true);
    context.set_deadline(Wall::now() + std::chrono::seconds(60));
    grpc::Status s = stub->GetDeviceInfo(&context, {}, &info);
    if (!s.ok()) {
      std::fprintf(stderr, "soak: GetDeviceInfo on %s: %s\n", address.c_str(),
                   s.error_message().c_str());
      return 2;
    }
  }
  // Every channel connected before the load, so its first connection is not
  // made while the server is saturated; then watched.
  ConnectionWatch watch(channels);
  if (!watch.ConnectAll(60)) {
    std::fprintf(stderr, "soak: the %zu channels did not all connect to %s within 60 s\n",
                 channels.size(), address.c_str());
    return 2;
  }
  std::printf("soak: device %s; %zu graphs x %zu images; %d callers for %d s\n",
              info.name().c_str(), graphs->size(), images.size(), absl::GetFlag(FLAGS_callers),
              duration_s);

  double gpu_floor = -1;
  if (gpu_skip.empty()) {
    absl::StatusOr<double> floor = ScrapeMetric(metrics, kGpuMetric);
    if (floor.ok()) {
      gpu_floor = *floor;
    } else {
      gpu_skip = absl::StrCat("skipped: ", floor.status().message());
    }
  }
  if (!gpu_skip.empty()) std::printf("soak: GPU memory check %s\n", gpu_skip.c_str());

  // Expected outputs: each request alone, one at a time.
  std::vector<Case> cases;
  for (const SoakGraph& g : *graphs) {
    for (const SoakImage& image : images) {
      Case c{.label = g.name + "/" + image.label,
             .request = MakeRequest(g, image, g.name + "/" + image.label)};
      grpc::ClientContext context;
      context.set_deadline(Wall::now() + std::chrono::seconds(300));
      v1::ProcessResponse response;
      grpc::Status s = stub->Process(&context, c.request, &response);
      if (!s.ok()) {
        std::fprintf(stderr, "soak: %s alone failed: %s\n", c.label.c_str(),
                     s.error_message().c_str());
        return 2;
      }
      c.expected = Canonical(response);
      cases.push_back(std::move(c));
    }
  }
  std::printf("soak: %zu expected outputs computed serially\n", cases.size());

  int warmup_s = absl::GetFlag(FLAGS_warmup_s);
  if (warmup_s < 0) warmup_s = std::min(60, duration_s / 5);
  Soak soak(channels, std::move(cases), info.limits().max_pixels());
  std::vector<Sample> samples;
  std::atomic<bool> stop_sampling{false};
  std::atomic<bool> idle{false};
  const Clock::time_point start = Clock::now();
  const Clock::time_point end = start + std::chrono::seconds(duration_s);
  // /metrics may be slow under load: scraped on its own thread so it never
  // delays the RSS samples; a sample takes the latest figure if it is fresh.
  std::atomic<double> latest_gpu{-1};
  std::atomic<int64_t> latest_gpu_ms{0};
  const auto ms_since_start = [&start] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
  };
  std::thread scraper([&] {
    while (gpu_skip.empty() && !stop_sampling) {
      absl::StatusOr<double> g = ScrapeMetric(metrics, kGpuMetric);
      if (g.ok()) {
        latest_gpu = *g;
        latest_gpu_ms = ms_since_start();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(absl::GetFlag(FLAGS_sample_ms)));
    }
  });
  std::thread sampler([&] {
    int64_t last_completed = 0;
    Clock::time_point last = start;
    while (!stop_sampling) {
      std::this_thread::sleep_for(std::chrono::milliseconds(absl::GetFlag(FLAGS_sample_ms)));
      const Clock::time_point now = Clock::now();
      Sample s;
      s.t_s = std::chrono::duration<double>(now - start).count();
      s.phase = idle ? Phase::kIdle : s.t_s < warmup_s ? Phase::kWarmUp : Phase::kLoad;
      if (pid > 0) {
        s.rss_kib = ResidentKib(pid);
        s.fds = OpenFds(pid);
      }
      if (ms_since_start() - latest_gpu_ms <= 2 * absl::GetFlag(FLAGS_sample_ms)) {
        s.gpu_bytes = latest_gpu;
      }
      s.completed = soak.tally().completed;
      s.requests_per_s = (s.completed - last_completed) /
                         std::chrono::duration<double>(now - last).count();
      last_completed = s.completed;
      last = now;
      samples.push_back(s);
    }
  });
  std::vector<std::thread> callers;
  for (int i = 0; i < absl::GetFlag(FLAGS_callers); ++i) {
    callers.emplace_back([&soak, i, end] { soak.Caller(i, end); });
  }
  for (std::thread& t : callers) t.join();
  const double load_s = std::chrono::duration<double>(Clock::now() - start).count();
  idle = true;
  const ConnectionCounts connections = watch.Stop();
  std::printf("soak: load done after %.0f s; idle for %d s\n", load_s, idle_s);
  std::this_thread::sleep_for(std::chrono::seconds(idle_s));
  stop_sampling = true;
  sampler.join();
  scraper.join();

  int exit_status = 0;
  bool clean_exit = true;
  if (process) {
    exit_status = process->Stop();
    clean_exit = WIFEXITED(exit_status) && WEXITSTATUS(exit_status) == 0;
  }

  Tally& t = soak.tally();
  std::printf("soak: %lld requests in %.0f s (%.1f/s): %lld OK with the expected bytes, "
              "%lld bad inputs refused with their code, %lld cancelled, %lld deadline exceeded, "
              "%lld cancels/deadlines finished in time\n",
              static_cast<long long>(t.completed.load()), load_s, t.completed / load_s,
              static_cast<long long>(t.ok.load()), static_cast<long long>(t.bad_refused.load()),
              static_cast<long long>(t.cancelled.load()), static_cast<long long>(t.deadline.load()),
              static_cast<long long>(t.finished_in_time.load()));
  for (const std::string& e : t.examples) std::printf("soak: UNEXPECTED %s\n", e.c_str());
  std::printf("soak: connection events during the load (calls wait for a reconnect; a call "
              "lost with its connection counts as unexpected): %s\n",
              Describe(connections).c_str());

  std::vector<CheckResult> checks = CheckSamples(samples, gpu_floor, Thresholds{}, gpu_skip);
  checks.insert(checks.begin(),
                {{.name = "wrong bytes", .passed = t.wrong_bytes == 0,
                  .detail = absl::StrCat(t.wrong_bytes.load(), " OK answers differ")},
                 {.name = "unexpected status codes", .passed = t.unexpected == t.wrong_bytes,
                  .detail = absl::StrCat(t.unexpected - t.wrong_bytes, " unexpected")}});
  if (process) {
    checks.push_back({.name = "server exits 0 on SIGTERM", .passed = clean_exit,
                      .detail = absl::StrCat("wait status ", exit_status)});
  }
  bool passed = true;
  for (const CheckResult& c : checks) {
    std::printf("soak: %s %s: %s\n", c.skipped ? "SKIP" : c.passed ? "PASS" : "FAIL",
                c.name.c_str(), c.detail.c_str());
    passed &= c.skipped || c.passed;
  }
  const std::string title = absl::StrCat("rgfx soak: ", duration_s, " s, ",
                                         absl::GetFlag(FLAGS_callers), " callers, ", info.name());
  for (const absl::Status& s :
       {WriteCsv(out_dir + "/soak.csv", samples),
        WriteSvg(out_dir + "/soak.svg", title, samples, gpu_skip)}) {
    if (!s.ok()) std::fprintf(stderr, "soak: %s\n", s.ToString().c_str());
  }
  std::printf("soak: %s; wrote %s/soak.csv and %s/soak.svg\n", passed ? "PASSED" : "FAILED",
              out_dir.c_str(), out_dir.c_str());
  return passed ? 0 : 1;
}

}  // namespace
}  // namespace rgfx::soak

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress lines show up when piped to a log
  absl::ParseCommandLine(argc, argv);
  return rgfx::soak::Run(argv[0]);
}
