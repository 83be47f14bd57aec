// The rgfx.v1.PostProcess gRPC service: a `final` callback service whose
// methods validate, hand the work to the scheduler and Finish once. Process
// and ProcessStream are registered raw (ByteBuffers; service/process_wire.h)
// so raw images are copied once each way and responses' images reach gRPC
// without a serialization copy.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>

#include "rgfx/v1/post_process.grpc.pb.h"
#include "service/device_set.h"
#include "service/engine.h"
#include "service/metrics.h"
#include "service/process_job.h"
#include "service/scheduler.h"

namespace rgfx::service {

// The generated callback service with Process and ProcessStream raw. Built
// from the parts rather than on CallbackService, whose typed methods the raw
// ones would hide.
using PostProcessServiceBase = v1::PostProcess::WithRawCallbackMethod_Process<
    v1::PostProcess::WithRawCallbackMethod_ProcessStream<v1::PostProcess::WithCallbackMethod_ListPasses<
        v1::PostProcess::WithCallbackMethod_GetDeviceInfo<v1::PostProcess::Service>>>>;

class PostProcessService final : public PostProcessServiceBase {
 public:
  // The synchronous methods the base disables (they abort) stay overloads.
  using PostProcessServiceBase::Process;
  using PostProcessServiceBase::ProcessStream;

  // `max_stream_in_flight`: per ProcessStream, requests being processed or
  // answered but not yet written; none more is read from the stream until
  // one is written (a client that never reads holds at most this many).
  PostProcessService(DeviceSet& devices, const ServiceConfig& config,
                     int max_stream_in_flight = 4);

  grpc::ServerUnaryReactor* Process(grpc::CallbackServerContext* context,
                                    const grpc::ByteBuffer* request,
                                    grpc::ByteBuffer* response) override;
  grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* ProcessStream(
      grpc::CallbackServerContext* context) override;
  grpc::ServerUnaryReactor* ListPasses(grpc::CallbackServerContext* context,
                                       const v1::ListPassesRequest* request,
                                       v1::ListPassesResponse* response) override;
  grpc::ServerUnaryReactor* GetDeviceInfo(grpc::CallbackServerContext* context,
                                          const v1::GetDeviceInfoRequest* request,
                                          v1::DeviceInfo* response) override;

  // What ProcessStreams hold on the server: the streams open and their
  // requests read and not yet written (or dropped). Kept by the streams.
  struct StreamCounters {
    std::atomic<int> open{0};
    std::atomic<int> requests_held{0};
  };
  StreamCounters& stream_counters() { return stream_counters_; }
  int max_stream_in_flight() const { return max_stream_in_flight_; }

  // Submits one request; `done` is called exactly once (also when refused).
  // `method` labels it in the metrics ("Process" or "ProcessStream").
  void Submit(const v1::ProcessRequest& request, v1::ProcessResponse& response,
              absl::Time deadline, std::function<bool()> cancelled,
              std::function<void(const absl::Status&)> done,
              std::string_view method = "Process", ExternalImages* external = nullptr);

  // Counts a message that did not parse as a request (no job ran).
  void ObserveUnparsed(std::string_view method, const absl::Status& status, uint64_t bytes_in,
                       uint64_t bytes_out);

  // Where requests are counted (service/metrics.h); null: nowhere. Set
  // before the server starts; it outlives the service.
  void set_metrics(Metrics* metrics) { metrics_ = metrics; }

 private:
  DeviceSet& devices_;
  const ServiceConfig config_;
  const v1::ListPassesResponse catalog_;
  const int max_stream_in_flight_;
  StreamCounters stream_counters_;
  Metrics* metrics_ = nullptr;
};

// The client's deadline as absl::Time (gRPC's "none" is far in the future).
absl::Time DeadlineOf(const grpc::CallbackServerContext& context);

}  // namespace rgfx::service
