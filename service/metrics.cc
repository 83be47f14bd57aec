#include "service/metrics.h"

#include <map>

#include <prometheus/counter.h>
#include <prometheus/exposer.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <exception>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace rgfx::service {
namespace {

using prometheus::Histogram;

// Request and stage durations: 100 µs (a cached tiny request's stage) to
// 60 s (a deadline), about three buckets per decade.
const Histogram::BucketBoundaries& SecondsBuckets() {
  static const Histogram::BucketBoundaries buckets = {
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
      0.1,    0.25,    0.5,    1,     2.5,    5,     10,   30,    60};
  return buckets;
}

// One pass's GPU time: 10 µs (a copy of a small image on a big GPU) to 10 s.
const Histogram::BucketBoundaries& GpuSecondsBuckets() {
  static const Histogram::BucketBoundaries buckets = {
      0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025,
      0.005,   0.01,     0.025,   0.05,   0.1,     0.25,   0.5,   1,      10};
  return buckets;
}

// Requests per submission: powers of two up to 64 (max_batch is small).
const Histogram::BucketBoundaries& BatchBuckets() {
  static const Histogram::BucketBoundaries buckets = {1, 2, 4, 8, 16, 32, 64};
  return buckets;
}

double Seconds(int64_t ns) { return static_cast<double>(ns) * 1e-9; }

}  // namespace

std::string GrpcCodeName(int code) {
  // gRPC's status codes are the canonical ones, numbered as absl::StatusCode.
  std::string name = absl::StatusCodeToString(static_cast<absl::StatusCode>(code));
  return name.empty() ? absl::StrCat("CODE_", code) : name;
}

// Runs the hook, then collects the registry: gauges read at scrape time are
// fresh in the same scrape.
class Metrics::HookedCollectable final : public prometheus::Collectable {
 public:
  HookedCollectable(Metrics& metrics, std::shared_ptr<prometheus::Registry> registry)
      : metrics_(metrics), registry_(std::move(registry)) {}

  std::vector<prometheus::MetricFamily> Collect() const override {
    {
      absl::MutexLock lock(&mu_);
      if (hook_) hook_(metrics_);
    }
    return registry_->Collect();
  }

  void SetHook(std::function<void(Metrics&)> hook) {
    absl::MutexLock lock(&mu_);  // waits for a scrape running the old one
    hook_ = std::move(hook);
  }

 private:
  Metrics& metrics_;
  std::shared_ptr<prometheus::Registry> registry_;
  mutable absl::Mutex mu_;
  std::function<void(Metrics&)> hook_ ABSL_GUARDED_BY(mu_);
};

Metrics::Metrics() : registry_(std::make_shared<prometheus::Registry>()) {
  prometheus::Registry& r = *registry_;
  requests_ = &prometheus::BuildCounter()
                   .Name("rgfx_requests_total")
                   .Help("Requests answered, by gRPC method and status code name; a "
                         "ProcessStream message counts as one request with its in-band status")
                   .Register(r);
  request_seconds_ = &prometheus::BuildHistogram()
                          .Name("rgfx_request_seconds")
                          .Help("Server-side duration of a request, arrival to answer ready, by "
                                "method (one observation per rgfx_requests_total increment)")
                          .Register(r);
  received_bytes_ = &prometheus::BuildCounter()
                         .Name("rgfx_received_bytes_total")
                         .Help("Serialized size of the request messages, by method")
                         .Register(r);
  sent_bytes_ = &prometheus::BuildCounter()
                     .Name("rgfx_sent_bytes_total")
                     .Help("Serialized size of the response messages, by method")
                     .Register(r);
  // One histogram per stage rather than one with a `stage` label: each is
  // read alone (rgfx_queue_seconds drives the autoscaler, deploy/hpa.yaml),
  // and a sum over a stage label would mean nothing.
  auto stage = [&](const char* name, const char* help) {
    return &prometheus::BuildHistogram()
                .Name(absl::StrCat("rgfx_", name, "_seconds"))
                .Help(absl::StrCat("Time of one admitted request ", help))
                .Register(r)
                .Add({}, SecondsBuckets());
  };
  stages_.queue = stage("queue", "waiting for a slot and for a GPU worker");
  stages_.decode = stage("decode", "decoding (PNG) or checking (raw) its inputs");
  stages_.compile = stage("compile", "compiling its graph, or looking it up in the cache");
  stages_.upload = stage("upload", "recording its uploads");
  stages_.submit = stage("submit", "from submission to the GPU's fence");
  stages_.gpu = stage("gpu", "on the GPU (timestamp queries; absent without them)");
  stages_.download = stage("download", "copying its outputs out of download memory");
  stages_.encode = stage("encode", "encoding its outputs (PNG)");
  pass_gpu_seconds_ = &prometheus::BuildHistogram()
                           .Name("rgfx_pass_gpu_seconds")
                           .Help("GPU time of one executed pass (timestamp queries), by pass "
                                 "type and variant")
                           .Register(r);
  queue_depth_ = &prometheus::BuildGauge()
                      .Name("rgfx_queued")
                      .Help("Requests admitted and waiting for a slot, by device index")
                      .Register(r);
  in_flight_ = &prometheus::BuildGauge()
                    .Name("rgfx_in_flight")
                    .Help("Requests being processed (decode to encode), by device index")
                    .Register(r);
  gpu_memory_ = &prometheus::BuildGauge()
                     .Name("rgfx_gpu_memory_bytes")
                     .Help("Device-local memory held for transient buffers, by device index")
                     .Register(r);
  staging_memory_ = &prometheus::BuildGauge()
                         .Name("rgfx_staging_memory_bytes")
                         .Help("Host-visible staging memory held (leased and free), by device "
                               "index")
                         .Register(r);
  device_healthy_ = &prometheus::BuildGauge()
                         .Name("rgfx_device_healthy")
                         .Help("1 while the device serves, 0 while it is lost or being "
                               "recreated, by device index")
                         .Register(r);
  submissions_ = &prometheus::BuildCounter()
                      .Name("rgfx_gpu_submissions_total")
                      .Help("GPU queue submissions of request work")
                      .Register(r)
                      .Add({});
  device_requests_ = &prometheus::BuildCounter()
                         .Name("rgfx_device_requests_total")
                         .Help("Requests run on the device's GPU, by device index")
                         .Register(r);
  // Its rate is the share of time the GPU ran request work: what tells a
  // busy device from an idle one, and a slow one (clocked down) from both.
  device_gpu_seconds_ = &prometheus::BuildCounter()
                            .Name("rgfx_device_gpu_seconds_total")
                            .Help("GPU time of the requests run on the device (timestamp "
                                  "queries), by device index")
                            .Register(r);
  batch_requests_ = &prometheus::BuildHistogram()
                         .Name("rgfx_gpu_batch_requests")
                         .Help("Requests carried by one GPU submission")
                         .Register(r)
                         .Add({}, BatchBuckets());
  collectable_ = std::make_shared<HookedCollectable>(*this, registry_);
}

Metrics::~Metrics() {
  exposer_.reset();  // no scrape runs past here
}

absl::Status Metrics::Serve(const std::string& address) {
  if (exposer_ != nullptr) return absl::FailedPreconditionError("metrics: already serving");
  // civetweb reports a failed bind by throwing (prometheus-cpp's only error
  // path); nothing else here throws.
  try {
    exposer_ = std::make_unique<prometheus::Exposer>(address, /*num_threads=*/1);
  } catch (const std::exception& e) {
    return absl::UnavailableError(
        absl::StrCat("metrics: cannot listen on ", address, " (", e.what(), ")"));
  }
  exposer_->RegisterCollectable(collectable_);
  const std::vector<int> ports = exposer_->GetListeningPorts();
  port_ = ports.empty() ? 0 : ports.front();
  if (port_ == 0) {
    exposer_.reset();
    return absl::UnavailableError(absl::StrCat("metrics: no port bound for ", address));
  }
  return absl::OkStatus();
}

std::string Metrics::Scrape() {
  return prometheus::TextSerializer().Serialize(collectable_->Collect());
}

void Metrics::SetScrapeHook(std::function<void(Metrics&)> hook) {
  collectable_->SetHook(std::move(hook));
}

void Metrics::ObserveRequest(std::string_view method, int grpc_code, double seconds,
                             uint64_t bytes_in, uint64_t bytes_out) {
  const std::string m(method);
  requests_->Add({{"method", m}, {"code", GrpcCodeName(grpc_code)}}).Increment();
  request_seconds_->Add({{"method", m}}, SecondsBuckets()).Observe(seconds);
  received_bytes_->Add({{"method", m}}).Increment(static_cast<double>(bytes_in));
  sent_bytes_->Add({{"method", m}}).Increment(static_cast<double>(bytes_out));
}

void Metrics::ObserveStages(const v1::StageTimings& t) {
  stages_.queue->Observe(Seconds(t.queue_ns()));
  stages_.decode->Observe(Seconds(t.decode_ns()));
  stages_.compile->Observe(Seconds(t.compile_ns()));
  stages_.upload->Observe(Seconds(t.upload_ns()));
  stages_.submit->Observe(Seconds(t.submit_ns()));
  if (t.has_gpu_ns()) stages_.gpu->Observe(Seconds(t.gpu_ns()));
  stages_.download->Observe(Seconds(t.download_ns()));
  stages_.encode->Observe(Seconds(t.encode_ns()));
}

void Metrics::ObservePass(std::string_view type, std::string_view variant, double seconds) {
  pass_gpu_seconds_
      ->Add({{"type", std::string(type)}, {"variant", std::string(variant)}}, GpuSecondsBuckets())
      .Observe(seconds);
}

void Metrics::ObserveResponse(const v1::ProcessResponse& response) {
  ObserveStages(response.stages());
  for (const v1::PassTiming& pass : response.passes()) {
    if (pass.has_gpu_ns()) ObservePass(pass.type(), pass.variant(), Seconds(pass.gpu_ns()));
  }
}

void Metrics::SetQueueDepth(int device, int requests) {
  queue_depth_->Add({{"device", absl::StrCat(device)}}).Set(requests);
}

void Metrics::SetInFlight(int device, int requests) {
  in_flight_->Add({{"device", absl::StrCat(device)}}).Set(requests);
}

void Metrics::SetGpuMemoryBytes(int device, uint64_t bytes) {
  gpu_memory_->Add({{"device", absl::StrCat(device)}}).Set(static_cast<double>(bytes));
}

void Metrics::SetStagingMemoryBytes(int device, uint64_t bytes) {
  staging_memory_->Add({{"device", absl::StrCat(device)}}).Set(static_cast<double>(bytes));
}

void Metrics::SetDeviceHealthy(int device, bool healthy) {
  device_healthy_->Add({{"device", absl::StrCat(device)}}).Set(healthy ? 1 : 0);
}

void Metrics::CountSubmission(int device, int requests, std::optional<double> gpu_seconds) {
  submissions_->Increment();
  batch_requests_->Observe(requests);
  const std::map<std::string, std::string> labels = {{"device", absl::StrCat(device)}};
  device_requests_->Add(labels).Increment(requests);
  if (gpu_seconds) device_gpu_seconds_->Add(labels).Increment(*gpu_seconds);
}

}  // namespace rgfx::service
