// Which physical device to use: a pure function over what the devices
// report, so the rule is testable without a GPU. Rule (DESIGN.md §6): the
// first discrete GPU, else integrated, else virtual, else the CPU device
// (lavapipe); an override picks by index ("1") or by name substring ("H100").
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace rgfx::gpu {

struct DeviceCandidate {
  std::string name;
  std::string type;  // "discrete", "integrated", "virtual", "cpu", "other"
  bool has_compute_queue = true;
};

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
