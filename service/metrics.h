// Prometheus metrics of the server (prometheus-cpp), exposed over HTTP on
// their own port (--metrics_listen), apart from the gRPC port so a scraper
// needs no gRPC and the API port carries no HTTP/1 endpoint.
//
// Names follow the Prometheus conventions: `rgfx_` prefix, base units
// (seconds, bytes), `_total` on counters. The list, with labels and meaning,
// is in docs/ARCHITECTURE.md "Metrics".
//
// Service code holds a `Metrics*` that may be null (metrics off, or a test
// that builds the parts without a server): every caller writes
// `if (metrics) metrics->...`. A Metrics without a listener still counts
// (Scrape() returns the text), which is how the GPU-free tests read it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "rgfx/v1/post_process.pb.h"

namespace prometheus {
class Exposer;
class Registry;
template <typename T> class Family;
class Counter;
class Gauge;
class Histogram;
}  // namespace prometheus

namespace rgfx::service {

// The gRPC name of a status code ("RESOURCE_EXHAUSTED"); "CODE_<n>" for a
// number outside the canonical codes.
std::string GrpcCodeName(int code);

class Metrics {
 public:
  Metrics();
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // Serves GET /metrics on `address` ("host:port"; port 0 = any free port).
  // Call at most once.
  absl::Status Serve(const std::string& address);
  // The bound port once Serve succeeded, else 0.
  int port() const { return port_; }
  // The text exposition format, as a scrape would get it.
  std::string Scrape();

  // Called at the start of every scrape (HTTP or Scrape()), to set gauges
  // from state that is cheaper to read than to track (queue depth, memory).
  // nullptr removes it; returns once no scrape runs the old hook.
  void SetScrapeHook(std::function<void(Metrics&)> hook);

  // One finished call (unary) or one request of a stream, by method name
  // ("Process", "ProcessStream", "ListPasses", "GetDeviceInfo"), with its
  // gRPC status code, its duration as the server saw it (arrival to the
  // callback), and the serialized message sizes.
  void ObserveRequest(std::string_view method, int grpc_code, double seconds,
                      uint64_t bytes_in, uint64_t bytes_out);
  // The stage timings of one request that was admitted (ProcessJob::Done
  // filled them), whatever its outcome. GPU time only where measured.
  void ObserveStages(const v1::StageTimings& stages);
  // GPU time of one executed pass (internal import/export passes included,
  // their type is "import"/"export").
  void ObservePass(std::string_view type, std::string_view variant, double seconds);
  // Both of the above from a filled response.
  void ObserveResponse(const v1::ProcessResponse& response);

  // Gauges, per device index (--devices).
  void SetQueueDepth(int device, int requests);
  void SetInFlight(int device, int requests);
  void SetGpuMemoryBytes(int device, uint64_t bytes);
  void SetStagingMemoryBytes(int device, uint64_t bytes);
  void SetDeviceHealthy(int device, bool healthy);
  // One GPU submission on device `device` carrying `requests` requests
  // (batching, DESIGN.md §9) that took `gpu_seconds` (timestamps; nullopt
  // where not measured).
  void CountSubmission(int device, int requests, std::optional<double> gpu_seconds);

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  // The registry behind a collectable that runs the hook first.
  class HookedCollectable;
  std::shared_ptr<HookedCollectable> collectable_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  int port_ = 0;

  prometheus::Family<prometheus::Counter>* requests_;
  prometheus::Family<prometheus::Histogram>* request_seconds_;
  prometheus::Family<prometheus::Counter>* received_bytes_;
  prometheus::Family<prometheus::Counter>* sent_bytes_;
  // One histogram per stage: rgfx_queue_seconds, rgfx_decode_seconds, ...
  struct StageHistograms {
    prometheus::Histogram* queue;
    prometheus::Histogram* decode;
    prometheus::Histogram* compile;
    prometheus::Histogram* upload;
    prometheus::Histogram* submit;
    prometheus::Histogram* gpu;
    prometheus::Histogram* download;
    prometheus::Histogram* encode;
  } stages_;
  prometheus::Family<prometheus::Histogram>* pass_gpu_seconds_;
  prometheus::Family<prometheus::Gauge>* queue_depth_;
  prometheus::Family<prometheus::Gauge>* in_flight_;
  prometheus::Family<prometheus::Gauge>* gpu_memory_;
  prometheus::Family<prometheus::Gauge>* staging_memory_;
  prometheus::Family<prometheus::Gauge>* device_healthy_;
  prometheus::Counter* submissions_;
  prometheus::Family<prometheus::Counter>* device_requests_;
  prometheus::Family<prometheus::Counter>* device_gpu_seconds_;
  prometheus::Histogram* batch_requests_;
};

}  // namespace rgfx::service
