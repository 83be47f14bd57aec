#include "client/load.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <thread>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "rgfx/v1/post_process.grpc.pb.h"

namespace rgfx::client {
namespace {

using Clock = std::chrono::steady_clock;

double Percentile(std::vector<double> sorted, double q) {
  if (sorted.empty()) return 0;
  const size_t i = static_cast<size_t>(q * (sorted.size() - 1) + 0.5);
  return sorted[std::min(i, sorted.size() - 1)];
}

// What the callers collect, under one lock (a few hundred entries).
struct Results {
  absl::Mutex mu;
  std::vector<double> latency_ms ABSL_GUARDED_BY(mu);
  std::map<std::string, int> errors ABSL_GUARDED_BY(mu);  // "CODE: message" → count
  std::map<std::string, std::vector<double>> stages_ms ABSL_GUARDED_BY(mu);
};

void Record(Results& results, double ms, const grpc::Status& status,
            const v1::ProcessResponse& response) {
  absl::MutexLock lock(&results.mu);
  if (!status.ok()) {
    results.errors[absl::StrFormat("%d: %s", status.error_code(), status.error_message())]++;
    return;
  }
  results.latency_ms.push_back(ms);
  const v1::StageTimings& t = response.stages();
  auto add = [&](const char* name, int64_t ns) { results.stages_ms[name].push_back(ns / 1e6); };
  add("queue", t.queue_ns());
  add("decode", t.decode_ns());
  add("upload", t.upload_ns());
  add("submit", t.submit_ns());
  if (t.has_gpu_ns()) add("gpu", t.gpu_ns());
  add("download", t.download_ns());
  add("encode", t.encode_ns());
  add("total (server)", t.total_ns());
}

}  // namespace

int RunLoad(const std::shared_ptr<grpc::Channel>& channel, const v1::ProcessRequest& request,
            const LoadOptions& options) {
  auto stub = v1::PostProcess::NewStub(channel);
  Results results;
  std::atomic<int> claimed{0};
  const Clock::time_point start = Clock::now();
  const Clock::time_point stop_sending =
      start + std::chrono::milliseconds(static_cast<int64_t>(options.max_seconds * 1000));
  auto caller = [&] {
    // Each caller claims a request number first, so exactly `requests` are
    // sent in all; none is sent after max_seconds.
    while (claimed.fetch_add(1) < options.requests && Clock::now() < stop_sending) {
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() +
                           std::chrono::milliseconds(
                               static_cast<int64_t>(options.timeout_seconds * 1000)));
      v1::ProcessResponse response;
      const Clock::time_point sent = Clock::now();
      const grpc::Status status = stub->Process(&context, request, &response);
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - sent).count();
      Record(results, ms, status, response);
    }
  };
  std::vector<std::thread> callers;
  for (int i = 0; i < std::max(1, options.concurrency); ++i) callers.emplace_back(caller);
  for (auto& t : callers) t.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();

  absl::MutexLock lock(&results.mu);
  std::vector<double> latency = results.latency_ms;
  std::sort(latency.begin(), latency.end());
  int failed = 0;
  for (const auto& [what, count] : results.errors) failed += count;
  std::printf("%zu answered OK, %d failed in %.2f s with %d concurrent callers: %.1f requests/s\n",
              latency.size(), failed, seconds, options.concurrency, latency.size() / seconds);
  std::printf("latency ms (client): p50 %.1f  p90 %.1f  p99 %.1f  max %.1f\n",
              Percentile(latency, 0.5), Percentile(latency, 0.9), Percentile(latency, 0.99),
              latency.empty() ? 0.0 : latency.back());
  std::printf("server stages, median ms:");
  for (const char* name :
       {"queue", "decode", "upload", "submit", "gpu", "download", "encode", "total (server)"}) {
    auto it = results.stages_ms.find(name);
    if (it == results.stages_ms.end()) continue;
    std::vector<double> v = it->second;
    std::sort(v.begin(), v.end());
    std::printf("  %s %.2f", name, Percentile(v, 0.5));
  }
  std::printf("\n");
  for (const auto& [what, count] : results.errors) {
    std::printf("error %s (x%d)\n", what.c_str(), count);
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace rgfx::client
