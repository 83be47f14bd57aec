#include "service/device_set.h"

#include <algorithm>
#include <numeric>

namespace rgfx::service {

std::vector<int> OrderLanes(std::span<const LaneLoad> loads, int start) {
  const int n = static_cast<int>(loads.size());
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  if (n == 0) return order;
  start = ((start % n) + n) % n;
  // Compare (in_flight + queued) / capacity as cross products: exact.
  auto load_less = [&](int a, int b) {
    const int64_t la = loads[a].in_flight + loads[a].queued;
    const int64_t lb = loads[b].in_flight + loads[b].queued;
    return la * std::max(loads[b].capacity, 1) < lb * std::max(loads[a].capacity, 1);
  };
  auto turn = [&](int i) { return (i - start + n) % n; };
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    if (loads[a].healthy != loads[b].healthy) return loads[a].healthy;
    if (load_less(a, b)) return true;
    if (load_less(b, a)) return false;
    return turn(a) < turn(b);
  });
  return order;
}

std::vector<LaneLoad> DeviceSet::Loads() const {
  std::vector<LaneLoad> loads;
  for (const DeviceLane& lane : lanes_) {
    loads.push_back({lane.engine->healthy(), lane.scheduler->in_flight(),
                     lane.scheduler->queued(), lane.scheduler->options().max_in_flight});
  }
  return loads;
}

std::vector<int> DeviceSet::Order() {
  int start;
  {
    absl::MutexLock lock(&mu_);
    start = next_;
    next_ = (next_ + 1) % std::max(size(), 1);
  }
  const std::vector<LaneLoad> loads = Loads();
  return OrderLanes(loads, start);
}

void DeviceSet::Reset() {
  for (DeviceLane& lane : lanes_) lane.scheduler.reset();
  for (DeviceLane& lane : lanes_) lane.engine.reset();
  lanes_.clear();
}

}  // namespace rgfx::service
