#include "gpu/device_choice.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

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

absl::StatusOr<int> ChooseDevice(const std::vector<DeviceCandidate>& candidates,
                                 const std::string& override_spec) {
  if (candidates.empty()) return absl::NotFoundError("no Vulkan device found");
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

}  // namespace rgfx::gpu
