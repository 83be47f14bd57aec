// The whole server, for main() and for end-to-end tests that run it
// in-process: engine, scheduler, the PostProcess service, health and
// (opt-in) reflection, listening on one address (port 0 picks a free port),
// in plaintext or TLS/mutual TLS, with limits on connections and streams.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/synchronization/mutex.h"
#include "service/auto_calibration.h"
#include "service/device_set.h"
#include "service/engine.h"
#include "service/process_job.h"
#include "service/scheduler.h"
#include "service/service.h"
#include "service/tls_files.h"

namespace rgfx::service {

// Health service name of device i (--devices): this prefix and i.
inline constexpr char kDeviceHealthPrefix[] = "rgfx.v1.PostProcess/device/";

// gRPC server channel arguments that bound what connections may hold
// (docs/ARCHITECTURE.md "Security"). Zero durations: gRPC's default (never).
struct ConnectionOptions {
  // Pings on a connection idle this long; no answer within the timeout
  // closes it (a client that vanished without closing).
  absl::Duration keepalive_time = absl::Minutes(1);
  absl::Duration keepalive_timeout = absl::Seconds(20);
  // Whether clients may send keepalive pings while they have no call
  // (otherwise such pings count as abuse: GOAWAY too_many_pings), and how
  // often at most.
  bool keepalive_permit_without_calls = true;
  absl::Duration min_client_ping_interval = absl::Seconds(10);
  // A connection with no call for this long is closed (GOAWAY).
  absl::Duration max_connection_idle = absl::ZeroDuration();
  // Every connection is closed (GOAWAY) after this long, calls in flight get
  // the grace period: clients reconnect, so round_robin rebalances.
  absl::Duration max_connection_age = absl::ZeroDuration();
  absl::Duration max_connection_age_grace = absl::Seconds(30);
  int max_concurrent_streams = 256;  // per connection; 0: gRPC's default
  // gRPC's own buffers (ResourceQuota); 0: unbounded. Threads: 0: gRPC's.
  uint64_t memory_quota_bytes = 0;
  int max_threads = 0;
};

struct ServerOptions {
  // Loopback by default: listening on every interface is a choice
  // (containers pass --listen=0.0.0.0:50051).
  std::string listen_address = "127.0.0.1:50051";
  TlsOptions tls;
  ConnectionOptions connections;
  // gRPC server reflection (grpcurl without the .proto files): opt-in.
  bool reflection = false;
  // ProcessStream: requests of one stream processed or waiting to be
  // written at once; no more is read from the stream until one is written.
  int max_stream_in_flight = 4;
  EngineOptions engine;
  // --devices: "" = one device, engine.device's choice; "all" = every GPU;
  // or a list of indices / name substrings ("0,1"). One engine and one
  // scheduler (with its own CPU threads and limits) per entry.
  std::string devices;
  ServiceConfig config;
  int cpu_threads = 0;  // 0: one per core
  // Prometheus GET /metrics over HTTP (service/metrics.h): "host:port", port
  // 0 = any free port (metrics_port()); "" = off. Off here, so in-process
  // test servers do not collide; main's --metrics_listen is 127.0.0.1:9464.
  std::string metrics_listen;
  // AUTO's table measured on this server's devices before it listens
  // (service/auto_calibration.h). Off here, so in-process test servers
  // start at once; main's --auto_calibration is "missing".
  AutoCalibrationOptions auto_calibration;
};

class Server {
 public:
  static absl::StatusOr<std::unique_ptr<Server>> Start(const ServerOptions& options);
  ~Server();  // Shutdown(zero grace) if not done

  int port() const { return port_; }
  // The bound metrics port; 0 when metrics are off.
  int metrics_port() const { return metrics_ != nullptr ? metrics_->port() : 0; }
  // Null when metrics are off.
  Metrics* metrics() { return metrics_.get(); }
  // The first device's engine and scheduler; devices() has them all.
  Engine& engine() { return devices_->engine(0); }
  Scheduler& scheduler() { return devices_->scheduler(0); }
  DeviceSet& devices() { return *devices_; }
  PostProcessService& service() { return *service_; }
  // What --auto_calibration did at start-up: one report per device model
  // measured or read from the file (none where it measured nothing).
  const std::vector<AutoCalibrationReport>& auto_calibration() const { return calibrated_; }

  // Health NOT_SERVING, stop accepting, let RPCs in flight finish for up to
  // `grace` (then cancel them), drain the scheduler.
  void Shutdown(absl::Duration grace);

 private:
  Server() = default;
  void SetHealth(bool serving);
  // Device `index` became healthy or not: its own health entry, and the
  // server's (serving while any device is).
  void SetDeviceHealth(int index, bool healthy);

  ServerOptions options_;
  std::unique_ptr<Metrics> metrics_;  // outlives the service that counts into it
  std::unique_ptr<DeviceSet> devices_;
  std::vector<AutoCalibrationReport> calibrated_;
  absl::Mutex health_mu_;
  std::vector<bool> device_healthy_ ABSL_GUARDED_BY(health_mu_);
  std::unique_ptr<PostProcessService> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  bool shut_down_ = false;
};

}  // namespace rgfx::service
