// rgfx-gpu-bench --phase_clock: where a blur kernel's time goes, read from
// inside it. NVIDIA's driver offers no hardware counters through Vulkan (no
// VK_KHR_performance_query), but shaders may read clocks
// (VK_KHR_shader_clock) and which multiprocessor runs them
// (VK_NV_shader_sm_builtins). Builds of `fast`'s line kernel
// (gaussian_blur_fast.comp) and `large_radius`'s recursive kernel
// (gaussian_blur_recursive.comp) with PHASE_CLOCK (phase_clock.glsl) have
// invocation 0 of every workgroup record its multiprocessor and the clock
// when it starts, when its input is in shared memory, when its arithmetic
// is done, when its outputs are staged and when it ends (and, in the
// recursive kernel, when its first sweep and its scan are done); this file turns
// those records into how long each phase takes and what the workgroups
// sharing a multiprocessor were doing at the same time.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "graph/pass_type.h"

namespace rgfx::bench {

// A pass only the GPU benchmark registers: "phase_clock" plans exactly as
// gaussian_blur's `variant` (fast or large_radius) does in the graph's
// working format (both axes, clamp, the `radius` parameter, sigma =
// radius / 2) and runs the clocked build of its kernel. Outputs: the
// blurred image, then one records image per step (kPhaseRecordTexels
// texels per workgroup, PhaseRecordsExtent; read back as floats, every
// value a byte, exact in RGBA16F and RGBA32F). Refuses plans whose steps
// run another kernel (fast at r <= 6 blurs both axes in one dispatch, and
// in RGBA16F takes the matrix units where a device has them; large_radius's
// box stack, or its rows two channels a workgroup) and devices without the
// shader clocks.
std::unique_ptr<graph::PassType> MakePhaseClockPass();

// Must match PHASE_END() in passes/shaders/phase_clock.glsl: 36 values,
// each a byte, in 9 pixels of the working format.
inline constexpr uint32_t kPhaseRecordTexels = 9;
// Records images are this many workgroups wide.
inline constexpr uint32_t kPhaseRecordsPerRow = 32;
graph::Extent PhaseRecordsExtent(uint64_t workgroups);

// One workgroup's record, decoded. Clocks are the subgroup clock of the
// multiprocessor (cycles); `realtime_*` the device's realtime clock (low 32
// bits). A phase the kernel's path does not have reads 0.
struct PhaseRecord {
  uint32_t multiprocessor = 0;
  uint32_t start = 0;  // clock
  uint32_t realtime_start = 0;
  uint32_t realtime_end = 0;
  uint32_t staged = 0;    // clocks after the start: the segment in shared memory
  uint32_t computed = 0;  // invocation 0's products done
  uint32_t outputs = 0;   // the outputs staged for coalesced stores
  uint32_t end = 0;       // the stores issued
  // Within the arithmetic, where a kernel has them (large_radius's
  // recursive kernel): its first sweep done, its scan done.
  uint32_t swept = 0;
  uint32_t scanned = 0;
};

// Decodes `workgroups` records from a records image read back as floats
// (4 a texel); fails where a record was not written, holds a value that is
// not a byte, or its phases are out of order.
absl::StatusOr<std::vector<PhaseRecord>> DecodePhaseRecords(std::span<const float> texels,
                                                            uint64_t workgroups);

struct PhaseSummary {
  uint64_t workgroups = 0;
  uint32_t multiprocessors = 0;    // distinct ones seen
  double cycles_per_ns = 0;        // the clock's rate against the realtime clock (0: unknown)
  double dispatch_us = 0;          // first start to last end, realtime
  // Medians over workgroups, µs (cycles / cycles_per_ns): start to staged,
  // staged to computed, computed to outputs staged, to the end, and in all.
  double stage_us = 0, compute_us = 0, outputs_us = 0, store_us = 0, total_us = 0;
  // The arithmetic split where every record marks its sweep and scan:
  // staged to swept, swept to scanned, scanned to computed (medians, µs).
  bool split = false;
  double first_sweep_us = 0, scan_us = 0, second_sweep_us = 0;
  // Per multiprocessor, averaged over its busy time (first start to last
  // end of its workgroups): workgroups resident, and of those staging,
  // computing and finishing (outputs and stores); the most resident at
  // once; the share of its busy time with no workgroup computing.
  double resident = 0, staging = 0, computing = 0, finishing = 0;
  uint32_t most_resident = 0;
  double idle_compute_share = 0;
  double busy_us = 0;  // median busy span of a multiprocessor
};

PhaseSummary SummarizePhases(const std::vector<PhaseRecord>& records);
std::string FormatPhaseSummary(const PhaseSummary& summary);

}  // namespace rgfx::bench
