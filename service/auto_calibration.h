// AUTO from measurements on any GPU: at start-up the server times every blur
// variant on its own device over a grid of working formats, image sizes and
// radii (the way rgfx-gpu-bench --sweep does: GPU timestamps, medians of
// several submissions at sustained clocks), and hands the rows to the pass
// (passes::SetMeasuredAutoRows), where they replace the built-in table's
// rows of that device. A GPU the built-in table has not measured then gets
// choices from measurements, not the fallback rule. With a file the rows
// survive restarts: a server on the same device, driver and build with the
// same grid reads them instead of measuring (service/auto_table_file.h).
#pragma once

#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gpu/caps.h"
#include "graph/image_format.h"
#include "service/auto_table_file.h"
#include "service/engine.h"

namespace rgfx::service {

enum class AutoCalibrationMode {
  kOff,      // never: the built-in table, else the fallback rule
  kMissing,  // GPUs the built-in table has no rows for (not CPU devices)
  kAlways,   // every device, CPUs and measured GPUs too
};

struct AutoCalibrationOptions {
  AutoCalibrationMode mode = AutoCalibrationMode::kOff;
  std::string file;  // "" = measure at every start
  // The grid. AUTO takes the nearest measured size (by pixel count, in log
  // scale), then the nearest radius: the built-in table's sizes and radii.
  std::vector<graph::PixelFormat> formats = {graph::PixelFormat::kRgba16F,
                                             graph::PixelFormat::kRgba32F};
  std::vector<graph::Extent> sizes = {{512, 512}, {1920, 1080}, {3840, 2160}};
  std::vector<int> radii = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
  // Every variant AUTO has ever chosen on a measured device.
  std::vector<std::string> variants = {"exact",        "tiled_halo", "tuned", "fast",
                                       "large_radius", "decimated"};
  // Variants whose plan changes where a request allows approximation (fast
  // in RGBA32F) are also measured as planned with this floor, as the
  // built-in table's "allowed" sweeps were.
  double allowed_psnr_db = 50;
  int runs = 5;  // timed submissions per point; the median is kept
  // A point's variants are probed (one run each) first; those slower than
  // this many times the fastest probe of their accuracy (exact, or
  // approximate) keep their probe as their time: they lose there to a
  // faster row unless the request's PSNR floor refuses every faster
  // approximate one, and timing them in full was most of the calibration
  // (exact at 3840x2160 r = 1024 takes 43 ms on an H200).
  double full_timing_within = 3.0;
  // GPU time per timed submission (the graph repeated back to back): long
  // enough that the clocks stay up and the timestamps' overhead is small.
  absl::Duration submission = absl::Milliseconds(10);
  // Before the first point, on GPUs: an idle GPU's clocks are low.
  absl::Duration warmup = absl::Milliseconds(500);
};

// Sets options' grid from flag text: formats "rgba16f,rgba32f", sizes
// "512x512,1920x1080", radii "1,2,4". An error names the flag and the item
// it cannot take.
absl::Status ParseCalibrationGrid(absl::string_view formats, absl::string_view sizes,
                                  absl::string_view radii, AutoCalibrationOptions& options);

// Whether `mode` measures a device with `caps` at start-up.
bool NeedsAutoCalibration(AutoCalibrationMode mode, const gpu::DeviceCaps& caps);

// Everything the measured times depend on, as one line: the device (name,
// ids, driver, Vulkan version), this build (a hash of the running binary)
// and the grid.
std::string CalibrationKey(const gpu::DeviceCaps& caps, const AutoCalibrationOptions& options);

// Which of a point's probed candidates are timed in full: those within
// options.full_timing_within of the fastest probe of their own accuracy
// (approximate[i] says which); the others keep their probe. Separate from
// MeasureAutoRows so that the choice is tested without a GPU.
std::vector<bool> TimedInFull(const std::vector<bool>& approximate,
                              const std::vector<double>& probe_us, double within);

// Times the grid on `engine`: every candidate first runs once on all its
// workers at once (so that their pipelines are created in parallel), then
// each is timed on worker 0. Nothing else may run on the engine meanwhile.
// Points a variant cannot plan are left out; a run that fails is an error.
absl::StatusOr<std::vector<CalibratedRow>> MeasureAutoRows(Engine& engine,
                                                           const AutoCalibrationOptions& options);

struct AutoCalibrationReport {
  std::string device;
  std::string source;  // "measured" or "file"
  size_t rows = 0;
  absl::Duration took;
};

// Reads the device's rows from options.file where its section's key
// matches, else measures them (and writes the file, keeping other devices'
// sections; a file that cannot be read or written is logged, not fatal),
// then installs them for AUTO.
absl::StatusOr<AutoCalibrationReport> CalibrateAuto(Engine& engine,
                                                    const AutoCalibrationOptions& options);

}  // namespace rgfx::service
