#include "service/server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/impl/server_builder_option.h>
#include <grpcpp/resource_quota.h>
#include <grpcpp/security/server_credentials.h>

#include <algorithm>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
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

// Server reflection on or off for this server. Loading gRPC's reflection
// library registers its plugin for every server of the process (a static
// initializer), so "off" has to take it out again.
class ReflectionOption final : public grpc::ServerBuilderOption {
 public:
  explicit ReflectionOption(bool enabled) : enabled_(enabled) {}
  void UpdateArguments(grpc::ChannelArguments*) override {}
  void UpdatePlugins(std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>* plugins) override {
    const std::string name = grpc::reflection::ProtoServerReflectionPlugin().name();
    std::erase_if(*plugins, [&](const auto& plugin) { return plugin->name() == name; });
    if (enabled_) plugins->push_back(std::make_unique<grpc::reflection::ProtoServerReflectionPlugin>());
  }

 private:
  const bool enabled_;
};

std::shared_ptr<grpc::ServerCredentials> Credentials(const TlsMaterial& tls) {
  if (tls.cert_chain_pem.empty()) return grpc::InsecureServerCredentials();
  grpc::SslServerCredentialsOptions ssl(
      tls.client_ca_pem.empty() ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                                : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  ssl.pem_root_certs = tls.client_ca_pem;
  ssl.pem_key_cert_pairs.push_back({tls.private_key_pem, tls.cert_chain_pem});
  return grpc::SslServerCredentials(ssl);
}

int Ms(absl::Duration d) {
  return static_cast<int>(std::min<int64_t>(absl::ToInt64Milliseconds(d),
                                            std::numeric_limits<int>::max()));
}

// ConnectionOptions as gRPC channel arguments and resource quota.
void ApplyConnectionOptions(const ConnectionOptions& c, grpc::ServerBuilder& builder) {
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, Ms(c.keepalive_time));
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, Ms(c.keepalive_timeout));
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS,
                             c.keepalive_permit_without_calls ? 1 : 0);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
                             Ms(c.min_client_ping_interval));
  if (c.max_connection_idle > absl::ZeroDuration()) {
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, Ms(c.max_connection_idle));
  }
  if (c.max_connection_age > absl::ZeroDuration()) {
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_MS, Ms(c.max_connection_age));
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_GRACE_MS,
                               Ms(c.max_connection_age_grace));
  }
  if (c.max_concurrent_streams > 0) {
    builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, c.max_concurrent_streams);
  }
  if (c.memory_quota_bytes > 0 || c.max_threads > 0) {
    grpc::ResourceQuota quota("rgfx-server");
    if (c.memory_quota_bytes > 0) quota.Resize(c.memory_quota_bytes);
    if (c.max_threads > 0) quota.SetMaxThreads(c.max_threads);
    builder.SetResourceQuota(quota);
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<Server>> Server::Start(const ServerOptions& options) {
  std::unique_ptr<Server> server(new Server());
  server->options_ = options;
  // Files and flags first: a typo should not wait for the devices to start.
  absl::StatusOr<TlsMaterial> tls = LoadTlsFiles(options.tls);
  if (!tls.ok()) return tls.status();
  if (options.max_stream_in_flight < 1) {
    return absl::InvalidArgumentError("--max_stream_in_flight must be >= 1");
  }
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
      if (spec.empty()) return engine.status();  // one device, chosen automatically
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
  // AUTO's table before the port opens: measured on a quiet device, and no
  // request plans "auto" from the rule meanwhile. Devices of one model
  // share their rows (they are keyed by vendor and device id).
  for (int i = 0; i < server->devices_->size(); ++i) {
    Engine& engine = server->devices_->engine(i);
    if (!NeedsAutoCalibration(options.auto_calibration.mode, engine.caps())) continue;
    const bool done = std::any_of(
        server->calibrated_.begin(), server->calibrated_.end(),
        [&](const AutoCalibrationReport& r) { return r.device == engine.caps().name; });
    if (done) continue;
    absl::StatusOr<AutoCalibrationReport> report = CalibrateAuto(engine, options.auto_calibration);
    if (!report.ok()) {
      // Serving with the built-in table or the rule beats not serving.
      ServerLog().Warning("auto calibration failed; auto follows the built-in table or the rule",
                          {Field("device", engine.caps().name),
                           Field("error", report.status().ToString())});
      continue;
    }
    ServerLog().Info("auto calibration", {Field("device", report->device),
                                          Field("source", report->source),
                                          Field("rows", static_cast<int64_t>(report->rows)),
                                          Field("seconds", absl::StrFormat("%.1f", absl::ToDoubleSeconds(report->took)))});
    server->calibrated_.push_back(*std::move(report));
  }
  server->device_healthy_.assign(server->devices_->size(), true);
  // Metrics after the devices: a server without a driver reports that, not
  // a metrics port another process holds.
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
    Metrics* metrics = server->metrics_.get();
    for (int i = 0; i < server->devices_->size(); ++i) {
      server->devices_->engine(i).set_submission_listener(
          [metrics, i](int requests, std::optional<double> gpu_seconds) {
            metrics->CountSubmission(i, requests, gpu_seconds);
          });
    }
  }
  server->service_ = std::make_unique<PostProcessService>(*server->devices_, options.config,
                                                          options.max_stream_in_flight);
  server->service_->set_metrics(server->metrics_.get());

  grpc::EnableDefaultHealthCheckService(true);
  grpc::ServerBuilder builder;
  builder.SetOption(std::make_unique<ReflectionOption>(options.reflection));
  builder.AddListeningPort(options.listen_address, Credentials(*tls), &server->port_);
  ApplyConnectionOptions(options.connections, builder);
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
