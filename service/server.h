// The whole server, for main() and for end-to-end tests that run it
// in-process: engine, scheduler, the PostProcess service, health and
// reflection, listening on one address (port 0 picks a free port).
#pragma once

#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "service/engine.h"
#include "service/process_job.h"
#include "service/scheduler.h"
#include "service/service.h"

namespace rgfx::service {

struct ServerOptions {
  std::string listen_address = "0.0.0.0:50051";
  EngineOptions engine;
  ServiceConfig config;
  int cpu_threads = 0;  // 0: one per core
};

class Server {
 public:
  static absl::StatusOr<std::unique_ptr<Server>> Start(const ServerOptions& options);
  ~Server();  // Shutdown(zero grace) if not done

  int port() const { return port_; }
  Engine& engine() { return *engine_; }
  Scheduler& scheduler() { return *scheduler_; }

  // Health NOT_SERVING, stop accepting, let RPCs in flight finish for up to
  // `grace` (then cancel them), drain the scheduler.
  void Shutdown(absl::Duration grace);

 private:
  Server() = default;
  void SetHealth(bool serving);

  ServerOptions options_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<PostProcessService> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  bool shut_down_ = false;
};

}  // namespace rgfx::service
