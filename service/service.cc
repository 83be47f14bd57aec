#include "service/service.h"

#include <algorithm>
#include <atomic>
#include <deque>

#include "absl/time/clock.h"
#include "service/catalog.h"
#include "service/log.h"
#include "service/process_wire.h"
#include "service/status_map.h"

namespace rgfx::service {
namespace {

// A unary Process call: it owns the parsed request and the response the job
// fills, both alive until gRPC is done with the call.
class ProcessReactor final : public grpc::ServerUnaryReactor {
 public:
  void OnCancel() override { cancelled_.store(true); }
  void OnDone() override { delete this; }
  bool cancelled() const { return cancelled_.load(); }

  WireRequest request;  // raw inputs' bytes stay in its slices
  v1::ProcessResponse response;

 private:
  std::atomic<bool> cancelled_{false};
};

// Requests of one stream, each answered when it is done. At most
// max_stream_in_flight are held at once per stream, counting both those being
// processed and those answered but not yet written: the next message is read
// only when one has been written. So a fast writer is slowed by gRPC flow
// control rather than filling the server's queue, and a client that never
// reads holds a bounded number of responses (not one per request it sent).
// gRPC calls (StartRead/StartWrite/Finish) are made outside the mutex.
// The in-band answer of a stream to a request that failed.
v1::ProcessResponse InBandError(const std::string& id, const absl::Status& status) {
  v1::ProcessResponse error;
  error.set_id(id);
  error.mutable_error()->set_code(static_cast<int>(status.code()));
  error.mutable_error()->set_message(std::string(status.message()));
  return error;
}

// Raw like Process: messages are parsed and written by service/process_wire,
// so raw images are copied once each way here too, and a message that is not
// a ProcessRequest is answered in-band (INVALID_ARGUMENT) like any failed
// request instead of ending the stream.
class StreamReactor final : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  StreamReactor(PostProcessService& service, grpc::CallbackServerContext& context)
      : service_(service),
        counters_(service.stream_counters()),
        window_(service.max_stream_in_flight()),
        deadline_(DeadlineOf(context)) {
    counters_.open.fetch_add(1);
    Step();
  }
  ~StreamReactor() override { counters_.open.fetch_sub(1); }

  void OnReadDone(bool ok) override {
    if (!ok) {
      absl::MutexLock lock(&mu_);
      reading_ = false;
      reads_done_ = true;
    } else {
      auto* slot = new Slot;
      const absl::Status parsed = ParseProcessRequest(incoming_, slot->request);
      incoming_.Clear();
      {
        absl::MutexLock lock(&mu_);
        reading_ = false;
        ++jobs_;
      }
      counters_.requests_held.fetch_add(1);
      if (!parsed.ok()) {
        service_.ObserveUnparsed("ProcessStream", parsed, slot->request.external.wire_bytes_in,
                                 InBandError("", parsed).ByteSizeLong());
        OnJobDone(slot, parsed);
      } else {
        service_.Submit(
            slot->request.message, slot->response, deadline_, [this] { return cancelled_.load(); },
            [this, slot](const absl::Status& status) { OnJobDone(slot, status); },
            "ProcessStream", &slot->request.external);
      }
    }
    Step();
  }

  void OnWriteDone(bool ok) override {
    int released = 1;
    {
      absl::MutexLock lock(&mu_);
      writing_ = false;
      writes_.pop_front();
      if (!ok) {  // the client is gone: drop what is left
        broken_ = true;
        released += static_cast<int>(writes_.size());
        writes_.clear();
      }
    }
    counters_.requests_held.fetch_sub(released);
    Step();
  }

  void OnCancel() override { cancelled_.store(true); }
  void OnDone() override { delete this; }

 private:
  struct Slot {
    WireRequest request;  // raw inputs' bytes stay in its slices
    v1::ProcessResponse response;
    grpc::ByteBuffer wire;  // what is written
  };

  void OnJobDone(Slot* slot, const absl::Status& status) {
    std::unique_ptr<Slot> owned(slot);
    if (status.ok()) {
      slot->wire = SerializeSharingImages(slot->response, &slot->request.external);
    } else {
      // A failed request does not end the stream: it is answered in-band.
      v1::ProcessResponse error = InBandError(slot->response.id(), status);
      slot->wire = SerializeSharingImages(error);
    }
    bool dropped = false;
    {
      absl::MutexLock lock(&mu_);
      --jobs_;
      dropped = broken_;
      if (!broken_) writes_.push_back(std::move(owned));
    }
    if (dropped) counters_.requests_held.fetch_sub(1);
    Step();
  }

  void Step() {
    const grpc::ByteBuffer* write = nullptr;
    bool read = false, finish = false;
    {
      absl::MutexLock lock(&mu_);
      if (finishing_) return;
      if (!writing_ && !writes_.empty()) {
        writing_ = true;
        write = &writes_.front()->wire;
      }
      const int held = jobs_ + static_cast<int>(writes_.size());
      if (!reading_ && !reads_done_ && !broken_ && held < window_) {
        reading_ = true;
        read = true;
      }
      if ((reads_done_ || broken_) && !reading_ && jobs_ == 0 && !writing_ && writes_.empty()) {
        finishing_ = true;
        finish = true;
      }
    }
    if (write != nullptr) StartWrite(write);
    if (read) StartRead(&incoming_);
    if (finish) {
      Finish(cancelled_.load() ? grpc::Status(grpc::StatusCode::CANCELLED, "stream cancelled")
                               : grpc::Status::OK);
    }
  }

  PostProcessService& service_;
  PostProcessService::StreamCounters& counters_;
  const int window_;
  const absl::Time deadline_;
  std::atomic<bool> cancelled_{false};
  grpc::ByteBuffer incoming_;  // one read at a time
  absl::Mutex mu_;
  bool reading_ ABSL_GUARDED_BY(mu_) = false;
  bool reads_done_ ABSL_GUARDED_BY(mu_) = false;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool broken_ ABSL_GUARDED_BY(mu_) = false;
  bool finishing_ ABSL_GUARDED_BY(mu_) = false;
  int jobs_ ABSL_GUARDED_BY(mu_) = 0;
  std::deque<std::unique_ptr<Slot>> writes_ ABSL_GUARDED_BY(mu_);
};

// `done`, counting the request in `metrics` first: its status code as the
// client sees it, its server-side duration from now, the message sizes, and,
// when it was admitted (ProcessJob::Done filled its stage timings, whatever
// the outcome), its stage and per-pass GPU times.
std::function<void(const absl::Status&)> Observed(Metrics& metrics, std::string_view method,
                                                  const v1::ProcessRequest& request,
                                                  v1::ProcessResponse& response,
                                                  const ExternalImages* external,
                                                  std::function<void(const absl::Status&)> done) {
  const uint64_t bytes_in = external != nullptr ? external->wire_bytes_in : request.ByteSizeLong();
  return [&metrics, method = std::string(method), &response, external, start = absl::Now(),
          bytes_in, done = std::move(done)](const absl::Status& status) {
    if (response.stages().total_ns() > 0) metrics.ObserveResponse(response);
    // What goes back: the response on success; for a failure, nothing on a
    // unary call and the in-band error on a stream (StreamReactor::OnJobDone).
    uint64_t bytes_out = 0;
    if (status.ok()) {
      bytes_out = WireSize(response, external);
    } else if (method == "ProcessStream") {
      bytes_out = InBandError(response.id(), status).ByteSizeLong();
    }
    metrics.ObserveRequest(method, ToGrpcStatus(status).error_code(),
                           absl::ToDoubleSeconds(absl::Now() - start), bytes_in, bytes_out);
    done(status);
  };
}

}  // namespace

absl::Time DeadlineOf(const grpc::CallbackServerContext& context) {
  const auto deadline = context.deadline();
  const auto now = std::chrono::system_clock::now();
  // gRPC reports "no deadline" as the largest time_point: avoid overflow.
  if (deadline > now + std::chrono::hours(24 * 365)) return absl::InfiniteFuture();
  return absl::Now() + absl::FromChrono(deadline - now);
}

PostProcessService::PostProcessService(DeviceSet& devices, const ServiceConfig& config,
                                       int max_stream_in_flight)
    : devices_(devices),
      config_(config),
      catalog_(BuildCatalog(devices.engine(0).registry(), devices.engine(0).caps())),
      max_stream_in_flight_(std::max(1, max_stream_in_flight)) {}

void PostProcessService::Submit(const v1::ProcessRequest& request, v1::ProcessResponse& response,
                                absl::Time deadline, std::function<bool()> cancelled,
                                std::function<void(const absl::Status&)> done,
                                std::string_view method, ExternalImages* external) {
  if (metrics_ != nullptr) {
    done = Observed(*metrics_, method, request, response, external, std::move(done));
  }
  // The least loaded healthy device first; a device whose queue is full
  // passes the request on to the next.
  const std::string id = request.id().empty() ? NewRequestId() : request.id();
  absl::Status s;
  for (int lane : devices_.Order()) {
    auto job = std::make_unique<ProcessJob>(devices_.engine(lane), config_, request, response,
                                            deadline, cancelled, done, external);
    job->set_id(id);
    s = devices_.scheduler(lane).Submit(std::move(job));
    if (s.ok() || !absl::IsResourceExhausted(s)) break;
  }
  if (!s.ok()) {
    ServerLog().Info("request refused", {Field("id", id),
                                         Field("status", absl::StatusCodeToString(s.code())),
                                         Field("error", std::string(s.message()))});
    response.set_id(id);
    done(s);
  }
}

grpc::ServerUnaryReactor* PostProcessService::Process(grpc::CallbackServerContext* context,
                                                      const grpc::ByteBuffer* request,
                                                      grpc::ByteBuffer* response) {
  auto* reactor = new ProcessReactor();
  if (absl::Status parsed = ParseProcessRequest(*request, reactor->request); !parsed.ok()) {
    ObserveUnparsed("Process", parsed, request->Length(), 0);
    reactor->Finish(ToGrpcStatus(parsed));
    return reactor;
  }
  Submit(
      reactor->request.message, reactor->response, DeadlineOf(*context),
      [reactor] { return reactor->cancelled(); },
      [reactor, response](const absl::Status& status) {
        // The metrics (Observed) have counted the response's size already.
        if (status.ok()) {
          *response = SerializeSharingImages(reactor->response, &reactor->request.external);
        }
        reactor->Finish(ToGrpcStatus(status));
      },
      "Process", &reactor->request.external);
  return reactor;
}

void PostProcessService::ObserveUnparsed(std::string_view method, const absl::Status& status,
                                         uint64_t bytes_in, uint64_t bytes_out) {
  if (metrics_ == nullptr) return;
  metrics_->ObserveRequest(method, ToGrpcStatus(status).error_code(), 0, bytes_in,
                           bytes_out);
}

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* PostProcessService::ProcessStream(
    grpc::CallbackServerContext* context) {
  return new StreamReactor(*this, *context);
}

grpc::ServerUnaryReactor* PostProcessService::ListPasses(grpc::CallbackServerContext* context,
                                                         const v1::ListPassesRequest*,
                                                         v1::ListPassesResponse* response) {
  *response = catalog_;
  if (metrics_ != nullptr) metrics_->ObserveRequest("ListPasses", 0, 0, 0, response->ByteSizeLong());
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::ServerUnaryReactor* PostProcessService::GetDeviceInfo(grpc::CallbackServerContext* context,
                                                            const v1::GetDeviceInfoRequest*,
                                                            v1::DeviceInfo* response) {
  *response = BuildDeviceInfo(devices_.engine(0), config_, devices_.engine(0).workers());
  const std::vector<LaneLoad> loads = devices_.Loads();
  for (int i = 0; i < devices_.size(); ++i) {
    v1::DeviceStatus& status = *response->add_devices();
    status.set_index(i);
    status.set_name(devices_.engine(i).caps().name);
    status.set_healthy(loads[i].healthy);
    status.set_in_flight(loads[i].in_flight);
    status.set_queued(loads[i].queued);
  }
  if (metrics_ != nullptr) metrics_->ObserveRequest("GetDeviceInfo", 0, 0, 0, response->ByteSizeLong());
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

}  // namespace rgfx::service
