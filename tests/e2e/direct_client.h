// Helpers for end-to-end tests that start their own server (with test hooks
// or non-default options) rather than the suite's shared one: a fresh
// channel per call, Process and Health calls, and a hook that holds a run.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "rgfx/v1/post_process.grpc.pb.h"
#include "service/server.h"

namespace rgfx::testing {

// TestServerOptions() with `hooks`, then `configure` (may be empty).
std::unique_ptr<service::Server> StartServer(
    service::EngineTestHooks hooks,
    const std::function<void(service::ServerOptions&)>& configure = {});

// A channel of its own (local subchannel pool): a call never reuses another
// test's connection (which shutdown would close rather than refuse).
std::shared_ptr<grpc::Channel> NewChannel(int port);

struct Call {
  grpc::Status status;
  v1::ProcessResponse response;
};
Call Process(int port, const v1::ProcessRequest& request, absl::Duration deadline);

grpc::health::v1::HealthCheckResponse::ServingStatus Health(int port, const std::string& service);

// Every output's bytes equal (fails the test otherwise).
void ExpectSameOutputs(const v1::ProcessResponse& a, const v1::ProcessResponse& b);

// Fails the test on any Vulkan validation message the server's engines saw.
void ExpectNoValidationMessages(service::Server& server);

// Holds the next run (once armed) until released; the timeout keeps a
// failing test from hanging the server's destructor.
struct RunHold {
  std::atomic<bool> armed{false};
  absl::Notification held;
  absl::Notification release;

  absl::Status BeforeRun(int) {
    if (armed.exchange(false)) {
      held.Notify();
      release.WaitForNotificationWithTimeout(absl::Seconds(60));
    }
    return absl::OkStatus();
  }
  void Release() {
    if (!release.HasBeenNotified()) release.Notify();
  }
};

}  // namespace rgfx::testing
