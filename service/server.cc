#include "service/server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>

#include <thread>

#include "absl/strings/str_cat.h"
#include "gpu/device.h"
#include "gpu/device_choice.h"
#include "gpu/instance.h"
#include "service/log.h"

namespace rgfx::service {
namespace {

// One engine override per device of ServerOptions.devices.
absl::StatusOr<std::vector<std::string>> DeviceSpecs(const ServerOptions& options) {
  if (options.devices.empty()) return std::vector<std::string>{options.engine.device};
  // The list is resolved once, against the devices there are now.
  absl::StatusOr<std::unique_ptr<gpu::Instance>> instance = gpu::Instance::Create({});
  if (!instance.ok()) return instance.status();
  absl::StatusOr<std::vector<int>> chosen =
      gpu::ChooseDevices(gpu::ListDeviceCandidates(**instance), options.devices);
  if (!chosen.ok()) return chosen.status();
  std::vector<std::string> specs;
  for (int index : *chosen) specs.push_back(absl::StrCat(index));
  return specs;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Server>> Server::Start(const ServerOptions& options) {
  std::unique_ptr<Server> server(new Server());
  server->options_ = options;
  absl::StatusOr<std::vector<std::string>> device_specs = DeviceSpecs(options);
  if (!device_specs.ok()) return device_specs.status();
  // The CPU threads are shared out among the devices' schedulers.
  const int cpu_threads = options.cpu_threads > 0
                              ? options.cpu_threads
                              : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  std::vector<DeviceLane> lanes;
  for (const std::string& spec : *device_specs) {
    EngineOptions engine_options = options.engine;
    engine_options.device = spec;
    absl::StatusOr<std::unique_ptr<Engine>> engine = Engine::Create(engine_options);
    if (!engine.ok()) {
      return absl::Status(engine.status().code(),
                          absl::StrCat("device '", spec, "': ", engine.status().message()));
    }
    SchedulerOptions sched;
    sched.cpu_threads = std::max(1, cpu_threads / static_cast<int>(device_specs->size()));
    sched.gpu_workers = (*engine)->workers();
    sched.max_in_flight = options.config.max_in_flight;
    sched.max_queued = options.config.max_queued;
    sched.max_batch = options.config.max_batch;
    sched.batch_delay = options.config.batch_delay;
    lanes.push_back({*std::move(engine), std::make_unique<Scheduler>(sched)});
  }
  server->devices_ = std::make_unique<DeviceSet>(std::move(lanes));
  server->device_healthy_.assign(server->devices_->size(), true);
  if (!options.metrics_listen.empty()) {
    server->metrics_ = std::make_unique<Metrics>();
    if (absl::Status s = server->metrics_->Serve(options.metrics_listen); !s.ok()) return s;
    // Gauges read when scraped; ~Server removes the hook before the devices go.
    DeviceSet* devices = server->devices_.get();
    server->metrics_->SetScrapeHook([devices](Metrics& metrics) {
      const std::vector<LaneLoad> loads = devices->Loads();
      for (int i = 0; i < devices->size(); ++i) {
        metrics.SetQueueDepth(i, loads[i].queued);
        metrics.SetInFlight(i, loads[i].in_flight);
        metrics.SetDeviceHealthy(i, loads[i].healthy);
        const Engine::MemoryStats memory = devices->engine(i).memory_stats();
        metrics.SetGpuMemoryBytes(i, memory.device_bytes);
        metrics.SetStagingMemoryBytes(i, memory.staging_bytes);
      }
    });
  }
  server->service_ = std::make_unique<PostProcessService>(*server->devices_, options.config);
  server->service_->set_metrics(server->metrics_.get());

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
  for (int i = 0; i < server->devices_->size(); ++i) {
    server->devices_->engine(i).set_health_listener(
        [raw, i](bool healthy) { raw->SetDeviceHealth(i, healthy); });
  }
  server->SetHealth(true);
  return server;
}

void Server::SetDeviceHealth(int index, bool healthy) {
  bool any = false;
  {
    absl::MutexLock lock(&health_mu_);
    device_healthy_[index] = healthy;
    for (bool h : device_healthy_) any = any || h;
  }
  if (shut_down_ || server_ == nullptr) return;
  if (grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService()) {
    health->SetServingStatus(absl::StrCat(kDeviceHealthPrefix, index), healthy);
  }
  SetHealth(any);
}

void Server::SetHealth(bool serving) {
  if (server_ == nullptr) return;
  grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService();
  if (health == nullptr) return;
  health->SetServingStatus(serving);  // every service, including ""
  health->SetServingStatus("rgfx.v1.PostProcess", serving);
  if (serving) {
    // SetServingStatus(bool) above set every entry: put back the devices
    // that are not serving.
    absl::MutexLock lock(&health_mu_);
    for (size_t i = 0; i < device_healthy_.size(); ++i) {
      health->SetServingStatus(absl::StrCat(kDeviceHealthPrefix, i), device_healthy_[i]);
    }
  }
}

void Server::Shutdown(absl::Duration grace) {
  if (shut_down_) return;
  shut_down_ = true;
  SetHealth(false);
  // Returns once every RPC is finished; those still running at the deadline
  // are cancelled (their jobs see it before their next stage).
  // A server whose Start failed has built only some of its parts.
  if (server_ != nullptr) server_->Shutdown(absl::ToChronoTime(absl::Now() + grace));
  if (devices_ != nullptr) {
    for (int i = 0; i < devices_->size(); ++i) devices_->scheduler(i).Drain();
  }
}

Server::~Server() {
  if (metrics_ != nullptr) metrics_->SetScrapeHook(nullptr);  // reads devices_
  Shutdown(absl::ZeroDuration());
  server_.reset();
  service_.reset();
  if (devices_ != nullptr) devices_->Reset();
}

}  // namespace rgfx::service
