// `rgfx bench`: measures, on the server's device and through its own
// per-pass timestamps, (1) the Gaussian blur lineage at one size and radius
// (per step and total, ratio to the previous variant and to the copy floor
// measured in the same run, PSNR against the exact variant), (2) a radius
// sweep, and (3) the branch_lab table. Medians after warm-up, inputs rotated.
#pragma once

#include <string>
#include <vector>

#include "rgfx/v1/post_process.grpc.pb.h"

namespace rgfx::client {

struct BenchOptions {
  std::string out_dir;  // CSV and SVG go here when set
  uint32_t width = 1920;
  uint32_t height = 1080;
  int radius = 64;  // sigma = radius / 2
  std::vector<int> sweep_radii = {4, 16, 64, 256};
  int runs = 30;
  int warmup = 10;
  int sweep_runs = 10;
  // Options.gpu_repeats of every timed request: the GPU runs the graph this
  // many times back to back, so it is timed at sustained clocks.
  int gpu_repeats = 20;
  int rotate = 4;  // distinct random inputs cycled through
  std::string working_format = "rgba16f";
  bool branch_table = true;
};

// Prints the tables; returns a process exit code.
int RunBench(rgfx::v1::PostProcess::Stub& stub, const BenchOptions& options);

}  // namespace rgfx::client
