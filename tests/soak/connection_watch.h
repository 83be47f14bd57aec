// Watches the soak's channels from a thread of its own and counts what their
// connections did: attempts that failed (TRANSIENT_FAILURE) and connections
// that were up and went away (READY to anything else). The soak's calls wait
// for a reconnect (wait_for_ready), so these lose no request by themselves;
// the counts say whether the transport was steady while the calls were judged.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace rgfx::soak {

struct ConnectionCounts {
  int failed_attempts = 0;  // entries into TRANSIENT_FAILURE
  int dropped = 0;          // READY left for another state
};

class ConnectionWatch {
 public:
  explicit ConnectionWatch(std::vector<std::shared_ptr<grpc::Channel>> channels);
  ~ConnectionWatch();  // stops the thread

  // Connects every channel; false when one is not READY within `seconds`.
  bool ConnectAll(int seconds);
  ConnectionCounts Stop();

 private:
  void Run();

  std::vector<std::shared_ptr<grpc::Channel>> channels_;
  std::atomic<bool> stop_{false};
  std::atomic<int> failed_attempts_{0};
  std::atomic<int> dropped_{0};
  std::thread thread_;
};

// "2 failed connection attempts, 1 connection dropped" or "none".
std::string Describe(const ConnectionCounts& counts);

}  // namespace rgfx::soak
