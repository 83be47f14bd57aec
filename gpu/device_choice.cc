#include "gpu/device_choice.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gpu/instance.h"

namespace rgfx::gpu {
namespace {

int TypeRank(const std::string& type) {
  if (type == "discrete") return 0;
  if (type == "integrated") return 1;
  if (type == "virtual") return 2;
  if (type == "cpu") return 3;
  return 4;
}

std::string ListCandidates(const std::vector<DeviceCandidate>& candidates) {
  std::vector<std::string> rows;
  for (size_t i = 0; i < candidates.size(); ++i) {
    rows.push_back(absl::StrCat(i, ": ", candidates[i].name, " (", candidates[i].type, ")"));
  }
  return rows.empty() ? "none" : absl::StrJoin(rows, "; ");
}

}  // namespace

absl::Status CheckDeviceSupport(const DeviceSupport& device) {
  constexpr uint32_t kVulkan12 = (1u << 22) | (2u << 12);  // VK_API_VERSION_1_2
  const std::string what = absl::StrCat("device '", device.name, "' ");
  if (!device.has_compute_queue) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, "has no compute queue, which rgfx requires; choose another with --device"));
  }
  if (device.api_version < kVulkan12) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, "supports Vulkan ", device.api_version >> 22, ".", (device.api_version >> 12) & 0x3ff,
        "; rgfx requires Vulkan 1.2 (update the driver or choose another device with --device)"));
  }
  if (!device.push_descriptors) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, "lacks push descriptors (VK_KHR_push_descriptor), which rgfx requires: every "
        "pass binds its buffers with them. Update the driver or choose another device with "
        "--device"));
  }
  return absl::OkStatus();
}

absl::StatusOr<int> ChooseDevice(const std::vector<DeviceCandidate>& candidates,
                                 const std::string& override_spec) {
  if (candidates.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("no Vulkan device found: ", VulkanDriverHelp()));
  }
  if (!override_spec.empty()) {
    int index = -1;
    const char* end = override_spec.data() + override_spec.size();
    auto [ptr, ec] = std::from_chars(override_spec.data(), end, index);
    if (ec == std::errc() && ptr == end) {
      if (index < 0 || index >= static_cast<int>(candidates.size())) {
        return absl::NotFoundError(absl::StrCat("--device=", override_spec,
                                                ": no device with that index; devices: ",
                                                ListCandidates(candidates)));
      }
      return index;
    }
    const std::string wanted = absl::AsciiStrToLower(override_spec);
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (absl::StrContains(absl::AsciiStrToLower(candidates[i].name), wanted)) {
        return static_cast<int>(i);
      }
    }
    return absl::NotFoundError(absl::StrCat("--device=", override_spec,
                                            ": no device name contains it; devices: ",
                                            ListCandidates(candidates)));
  }
  int best = -1;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!candidates[i].has_compute_queue) continue;
    // Strictly better rank only: the first device of the best type wins.
    if (best < 0 || TypeRank(candidates[i].type) < TypeRank(candidates[best].type)) {
      best = static_cast<int>(i);
    }
  }
  if (best < 0) {
    return absl::NotFoundError(
        absl::StrCat("no Vulkan device has a compute queue; devices: ", ListCandidates(candidates)));
  }
  return best;
}

absl::StatusOr<std::vector<int>> ChooseDevices(const std::vector<DeviceCandidate>& candidates,
                                               const std::string& devices_spec) {
  std::vector<int> chosen;
  if (absl::AsciiStrToLower(devices_spec) == "all") {
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (candidates[i].has_compute_queue && TypeRank(candidates[i].type) <= 2) {
        chosen.push_back(static_cast<int>(i));
      }
    }
    if (!chosen.empty()) return chosen;
    absl::StatusOr<int> fallback = ChooseDevice(candidates, "");
    if (!fallback.ok()) return fallback.status();
    return std::vector<int>{*fallback};
  }
  for (absl::string_view entry : absl::StrSplit(devices_spec, ',')) {
    const std::string spec(absl::StripAsciiWhitespace(entry));
    if (spec.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--devices=", devices_spec, ": an empty entry (use 'all' or e.g. '0,1')"));
    }
    absl::StatusOr<int> index = ChooseDevice(candidates, spec);
    if (!index.ok()) return index.status();
    chosen.push_back(*index);
  }
  return chosen;
}

}  // namespace rgfx::gpu
