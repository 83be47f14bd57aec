// Several GPUs in one server (--devices): one Engine and one Scheduler per
// device (a "lane"), and the rule that spreads requests over them. The rule
// is a pure function of the lanes' loads, so it is tested without a GPU
// (tests/service/device_set_test.cc).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "service/engine.h"
#include "service/scheduler.h"

namespace rgfx::service {

struct LaneLoad {
  bool healthy = true;
  int in_flight = 0;  // being processed
  int queued = 0;     // admitted, waiting for a slot
  int capacity = 1;   // max_in_flight: loads compare as fractions of it
};

// The order in which lanes are offered a new request: healthy lanes first,
// least loaded ((in_flight + queued) / capacity) first; among equals, the
// first at or after `start` (callers advance it per request, so equal lanes
// take turns). Unhealthy lanes come last: they answer UNAVAILABLE at once.
std::vector<int> OrderLanes(std::span<const LaneLoad> loads, int start);

struct DeviceLane {
  std::unique_ptr<Engine> engine;
  std::unique_ptr<Scheduler> scheduler;
};

class DeviceSet {
 public:
  explicit DeviceSet(std::vector<DeviceLane> lanes) : lanes_(std::move(lanes)) {}

  int size() const { return static_cast<int>(lanes_.size()); }
  Engine& engine(int i) { return *lanes_[i].engine; }
  Scheduler& scheduler(int i) { return *lanes_[i].scheduler; }
  std::vector<LaneLoad> Loads() const;
  // OrderLanes over the current loads, taking turns among equals.
  std::vector<int> Order();

  // Schedulers first (they drain and join their threads), then engines.
  void Reset();

 private:
  std::vector<DeviceLane> lanes_;
  absl::Mutex mu_;
  int next_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace rgfx::service
