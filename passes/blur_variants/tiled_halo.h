// tiled_halo's limits on a device (public for the catalog and auto).
#pragma once

#include <cstdint>

#include "gpu/caps.h"
#include "graph/image_format.h"

namespace rgfx::passes {

// Outputs per tile: RGFX_TILED_HALO_TILE, capped by the device's workgroup.
uint32_t TiledHaloTile(const gpu::DeviceCaps& caps);
// The largest radius whose tile and halo fit the shared memory.
int TiledHaloMaxRadius(const gpu::DeviceCaps& caps, graph::PixelFormat working);

}  // namespace rgfx::passes
