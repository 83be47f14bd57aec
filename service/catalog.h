// ListPasses and GetDeviceInfo answers, built from the pass registry's
// schemas and the device's caps (no second list of passes to keep in sync).
#pragma once

#include "graph/registry.h"
#include "rgfx/v1/post_process.pb.h"
#include "service/engine.h"
#include "service/process_job.h"

namespace rgfx::service {

void FillPassInfo(const graph::PassType& type, v1::PassInfo& info);

// Every registered type except the internal import/export, sorted by name.
v1::ListPassesResponse BuildCatalog(const graph::PassRegistry& registry);

v1::DeviceInfo BuildDeviceInfo(const Engine& engine, const ServiceConfig& config, int workers);

}  // namespace rgfx::service
