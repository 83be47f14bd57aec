#include "service/server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>

#include <thread>

#include "absl/strings/str_cat.h"
#include "service/log.h"

namespace rgfx::service {

absl::StatusOr<std::unique_ptr<Server>> Server::Start(const ServerOptions& options) {
  std::unique_ptr<Server> server(new Server());
  server->options_ = options;
  absl::StatusOr<std::unique_ptr<Engine>> engine = Engine::Create(options.engine);
  if (!engine.ok()) return engine.status();
  server->engine_ = *std::move(engine);

  SchedulerOptions sched;
  sched.cpu_threads = options.cpu_threads > 0
                          ? options.cpu_threads
                          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  sched.gpu_workers = server->engine_->workers();
  sched.max_in_flight = options.config.max_in_flight;
  sched.max_queued = options.config.max_queued;
  sched.max_batch = options.config.max_batch;
  sched.batch_delay = options.config.batch_delay;
  server->scheduler_ = std::make_unique<Scheduler>(sched);
  server->service_ = std::make_unique<PostProcessService>(*server->engine_, *server->scheduler_,
                                                          options.config);

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.listen_address, grpc::InsecureServerCredentials(),
                           &server->port_);
  builder.RegisterService(server->service_.get());
  const int max_bytes = static_cast<int>(
      std::min<uint64_t>(options.config.max_message_bytes, std::numeric_limits<int>::max()));
  builder.SetMaxReceiveMessageSize(max_bytes);
  builder.SetMaxSendMessageSize(max_bytes);
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || server->port_ == 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", options.listen_address, " (address in use?)"));
  }
  Server* raw = server.get();
  server->engine_->set_health_listener([raw](bool healthy) { raw->SetHealth(healthy); });
  server->SetHealth(true);
  return server;
}

void Server::SetHealth(bool serving) {
  if (server_ == nullptr) return;
  grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService();
  if (health == nullptr) return;
  health->SetServingStatus(serving);  // every service, including ""
  health->SetServingStatus("rgfx.v1.PostProcess", serving);
}

void Server::Shutdown(absl::Duration grace) {
  if (shut_down_) return;
  shut_down_ = true;
  SetHealth(false);
  // Returns once every RPC is finished; those still running at the deadline
  // are cancelled (their jobs see it before their next stage).
  server_->Shutdown(absl::ToChronoTime(absl::Now() + grace));
  scheduler_->Drain();
}

Server::~Server() {
  Shutdown(absl::ZeroDuration());
  server_.reset();
  service_.reset();
  scheduler_.reset();
  engine_.reset();
}

}  // namespace rgfx::service
