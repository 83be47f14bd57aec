// How requests are spread over several devices (service/device_set.h),
// without a GPU: fake lanes are plain load figures.
#include "service/device_set.h"

#include <map>

#include <gtest/gtest.h>

namespace rgfx::service {
namespace {

using Order = std::vector<int>;

TEST(OrderLanes, LeastLoadedFirst) {
  const std::vector<LaneLoad> loads = {{true, 5, 0, 8}, {true, 1, 0, 8}, {true, 3, 2, 8}};
  EXPECT_EQ(OrderLanes(loads, 0), (Order{1, 0, 2}));
}

TEST(OrderLanes, LoadIsRelativeToCapacity) {
  // 4 of 16 is less loaded than 2 of 4.
  const std::vector<LaneLoad> loads = {{true, 2, 0, 4}, {true, 4, 0, 16}};
  EXPECT_EQ(OrderLanes(loads, 0).front(), 1);
}

TEST(OrderLanes, UnhealthyLanesComeLast) {
  const std::vector<LaneLoad> loads = {{false, 0, 0, 8}, {true, 7, 0, 8}, {true, 2, 0, 8}};
  EXPECT_EQ(OrderLanes(loads, 0), (Order{2, 1, 0}));
}

TEST(OrderLanes, EqualLanesTakeTurns) {
  const std::vector<LaneLoad> loads(3, LaneLoad{true, 0, 0, 8});
  EXPECT_EQ(OrderLanes(loads, 0), (Order{0, 1, 2}));
  EXPECT_EQ(OrderLanes(loads, 1), (Order{1, 2, 0}));
  EXPECT_EQ(OrderLanes(loads, 5), (Order{2, 0, 1}));
}

// A simulated server: requests arrive one at a time and stay in flight;
// whatever the arrival pattern, no device gets more than one request more
// than another while all are healthy.
TEST(OrderLanes, SpreadsASteadyStreamEvenly) {
  std::vector<LaneLoad> loads(4, LaneLoad{true, 0, 0, 64});
  for (int request = 0; request < 100; ++request) {
    const int lane = OrderLanes(loads, request).front();
    ++loads[lane].in_flight;
    if (request % 3 == 2) --loads[(request / 3) % 4].in_flight;  // some finish
    int lo = 1 << 30, hi = 0;
    for (const LaneLoad& l : loads) {
      lo = std::min(lo, l.in_flight);
      hi = std::max(hi, l.in_flight);
    }
    ASSERT_LE(hi - lo, 2) << "after request " << request;
  }
}

TEST(OrderLanes, NoLanesNoOrder) { EXPECT_TRUE(OrderLanes({}, 3).empty()); }

}  // namespace
}  // namespace rgfx::service
