#include "tests/soak/connection_watch.h"

#include <chrono>

#include "absl/strings/str_cat.h"

namespace rgfx::soak {

ConnectionWatch::ConnectionWatch(std::vector<std::shared_ptr<grpc::Channel>> channels)
    : channels_(std::move(channels)) {}

ConnectionWatch::~ConnectionWatch() { Stop(); }

namespace {

bool ConnectAllBefore(const std::vector<std::shared_ptr<grpc::Channel>>& channels,
                      std::chrono::system_clock::time_point deadline) {
  for (const auto& channel : channels) {
    if (!channel->WaitForConnected(deadline)) return false;
  }
  return true;
}

}  // namespace

bool ConnectionWatch::ConnectAll(int seconds) {
  const bool connected =
      ConnectAllBefore(channels_, std::chrono::system_clock::now() + std::chrono::seconds(seconds));
  if (connected && !thread_.joinable()) thread_ = std::thread([this] { Run(); });
  return connected;
}

void ConnectionWatch::Run() {
  std::vector<grpc_connectivity_state> last;
  for (const auto& channel : channels_) last.push_back(channel->GetState(false));
  while (!stop_) {
    // Polled rather than waited on one channel at a time, so a change on any
    // channel is seen within a period (states can be missed between polls,
    // but a failed attempt stays in TRANSIENT_FAILURE for its backoff, >= 1 s).
    for (size_t i = 0; i < channels_.size(); ++i) {
      const grpc_connectivity_state now = channels_[i]->GetState(false);
      if (now == last[i]) continue;
      if (now == GRPC_CHANNEL_TRANSIENT_FAILURE) ++failed_attempts_;
      if (last[i] == GRPC_CHANNEL_READY) ++dropped_;
      last[i] = now;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

ConnectionCounts ConnectionWatch::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  return {.failed_attempts = failed_attempts_.load(), .dropped = dropped_.load()};
}

std::string Describe(const ConnectionCounts& counts) {
  if (counts.failed_attempts == 0 && counts.dropped == 0) return "none";
  return absl::StrCat(counts.failed_attempts, " failed connection attempts, ", counts.dropped,
                      " connections dropped");
}

}  // namespace rgfx::soak
