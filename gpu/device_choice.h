// Which physical device to use: a pure function over what the devices
// report, so the rule is testable without a GPU. Rule (DESIGN.md §6): the
// first discrete GPU, else integrated, else virtual, else the CPU device
// (lavapipe); an override picks by index ("1") or by name substring ("H100").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace rgfx::gpu {

struct DeviceCandidate {
  std::string name;
  std::string type;  // "discrete", "integrated", "virtual", "cpu", "other"
  bool has_compute_queue = true;
};

// What rgfx cannot run without, as a device reports it.
struct DeviceSupport {
  std::string name;
  uint32_t api_version = 0;       // VK_MAKE_API_VERSION
  bool has_compute_queue = false;
  bool push_descriptors = false;  // VK_KHR_push_descriptor
};

// OK, or FAILED_PRECONDITION naming the first missing requirement (compute
// queue, Vulkan 1.2, push descriptors) and what to do. GPU timestamps are not
// required (timings are then absent).
absl::Status CheckDeviceSupport(const DeviceSupport& device);

// Returns the index of the chosen candidate. An override that matches nothing
// is an error listing the devices there are.
absl::StatusOr<int> ChooseDevice(const std::vector<DeviceCandidate>& candidates,
                                 const std::string& override_spec);

// The devices of `--devices` (one engine each), as indices into
// `candidates`: "all" is every GPU (discrete, integrated or virtual) with a
// compute queue, or the single automatic choice (e.g. lavapipe) when there
// is none; otherwise a comma-separated list of indices or name substrings,
// each resolved as ChooseDevice would. Errors name the bad entry.
absl::StatusOr<std::vector<int>> ChooseDevices(const std::vector<DeviceCandidate>& candidates,
                                               const std::string& devices_spec);

}  // namespace rgfx::gpu
