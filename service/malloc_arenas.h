// glibc's malloc gives each thread that allocates its own arena, up to
// 8 per core, and an arena keeps the pages its freed blocks sat on. A server
// whose requests move megabyte-sized messages and images through many gRPC
// and worker threads then grows its resident memory for as long as it runs:
// on the H100 machine (16 cores) a 10-minute soak with 1080p images went from
// 3.6 GiB after warm-up to 4.3 GiB (+19%), while with two arenas it stayed
// flat at 1.8 GiB (docs/RELIABILITY.md). Small allocations are unaffected:
// they come from per-thread caches that take no arena lock.
#pragma once

#include "absl/status/status.h"

namespace rgfx::service {

// Caps the number of malloc arenas at `arenas` (> 0). Call before threads
// start: arenas made before the call stay. Fails where the C library has no
// such setting.
absl::Status LimitMallocArenas(int arenas);

}  // namespace rgfx::service
