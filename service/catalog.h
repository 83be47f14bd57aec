// ListPasses and GetDeviceInfo answers, built from the pass registry's
// schemas and the device's caps (no second list of passes to keep in sync).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "graph/registry.h"
#include "rgfx/v1/post_process.pb.h"
#include "service/engine.h"
#include "service/process_job.h"

namespace rgfx::service {

void FillPassInfo(const graph::PassType& type, v1::PassInfo& info);

// What a pass type chooses on this device (e.g. gaussian_blur's tuned
// workgroup and cache, the radius limits of its cached variants); empty for
// types that choose nothing. ListPasses appends these to the type's notes and
// GetDeviceInfo lists them as tuning_notes.
std::vector<std::string> DeviceTuningNotes(std::string_view type, const gpu::DeviceCaps& caps);

// Every registered type except the internal import/export, sorted by name,
// with the device's tuning notes appended to each type's schema notes.
v1::ListPassesResponse BuildCatalog(const graph::PassRegistry& registry,
                                    const gpu::DeviceCaps& caps);

v1::DeviceInfo BuildDeviceInfo(const Engine& engine, const ServiceConfig& config, int workers);

}  // namespace rgfx::service
