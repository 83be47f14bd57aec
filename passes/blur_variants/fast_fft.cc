// fast's FFT axis (fast_fft.h): the plan, its constants and its dispatch.
#include "passes/blur_variants/fast_fft.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "kGaussianBlurFftF32.h"
#include "kGaussianBlurFftPairsF32.h"
#include "kGaussianBlurFftPairsPer8F32.h"
#include "kGaussianBlurFftPer8F32.h"
#include "passes/pass_util.h"

namespace rgfx::passes {
namespace {

// StepKernel::shader of an FFT step (fast.cc's own kernels are 0-5): 16
// or 8 elements an invocation, both sequences of a line a workgroup (an
// element a vec4) or one (PAIRS: a vec2, two workgroups a line).
constexpr int kShaderFft16 = 16;
constexpr int kShaderFft8 = 17;
constexpr int kShaderFftPairs16 = 18;
constexpr int kShaderFftPairs8 = 19;
constexpr uint32_t kElementBytes = 16;     // a vec4: one element of both sequences
constexpr uint32_t kPairElementBytes = 8;  // a vec2: one sequence

// Must match the push_constant block of gaussian_blur_fft.comp.
struct FftPush {
  uint32_t n;
  uint32_t lines;
  uint32_t line_stride;
  uint32_t pixel_stride;
  uint32_t out_line_stride;
  uint32_t out_pixel_stride;
  uint32_t radius;
  uint32_t segment;
  uint32_t segments;
};
static_assert(sizeof(FftPush) == 9 * sizeof(uint32_t), "the shader's block has no padding");

constexpr FftPolicy kFftPolicy = {-1, 0, false, 0, 0, true};

// Spec constants of gaussian_blur_fft.comp: the temporary's strips as the
// step reads (in) and writes (out) it; 1: the image's own layout.
constexpr size_t kFftSpecInStrip = 4, kFftSpecOutStrip = 5;

// The line paths' time a line, in multiply-adds a pixel: (kLineFixed +
// 2R + 1)·n, kLineFixed the worth of their memory traffic and set-up. From
// the H200's fp32 line paths at 1080p r = 16-128 (µs an axis; raw output in
// docs/blur/h200-twentysecond-2026-11-29.txt): rows 35.8 / 45.1 / 58.6 /
// 70.7 / 90.1 / 113.2 at r = 16 / 32 / 48 / 64 / 96 / 128, 0.69 µs a unit
// of R and 24.8 at R = 0 (72 taps' worth); columns 35.6 / 43.8 / 54.8 /
// 66.6 / 93.7 / 115.5, 0.71 and 24.2 (68). Above r = 512 they grow faster
// (1,354.5 at r = 1000 for rows): the rule errs towards them there.
constexpr double kLineFixed = 70;
// The transforms take an axis where the model puts them at this fraction of
// the line paths' time or less: its error near break-even (on the H200
// before the load split, 4K columns at r = 40, 0.99 by the model then,
// took 203.0 µs against 166.9; 4K columns at r = 64, 0.90, took 225.8
// against 218.9) against what the margin gives up (1080p columns at
// r = 64, 0.90, took 64.0 against 66.6; on the H100 after the refit below,
// 1080p columns at r = 48 56.1 against 57.3, kept on the line paths, and
// 4K columns at r = 40, 0.97 by the model, 170.2 against 244.0).
constexpr double kFftMargin = 0.95;

// FftCost's kappa: the transforms' time for a 2048-point line (FftWork 1)
// over the line paths' time for a multiply-add a pixel. The two shapes
// 1080p takes (rows, and columns two a workgroup, 8 elements an
// invocation) are refitted on the H100 after every load was issued before
// the first store to shared memory (a4c78cd; raw output in
// docs/blur/h100-twentysixth-2026-12-07.txt; µs an axis, RGBA32F, 1080p,
// median of 20 runs of 10 repeats):
// - line paths, r = 32 / 40 / 48 / 56: rows 47.4 / 53.0 / 59.4 / 65.0
//   (0.733 µs a unit of R: 1.91e-4 µs a multiply-add a pixel for 1000
//   rows), columns 46.3 / 51.7 / 57.3 / 62.5 (0.675: 3.13e-4 for 1000
//   columns);
// - rows, 8 elements an invocation, five 512-point segments: 49.2 / 50.2 /
//   50.7 / 50.2 at r = 40 / 48 / 56 / 64 (125); break-even by the model
//   (with kFftMargin) at r = 37, where the line paths' slope puts it at 36;
// - rows, 8, 1024 points (three passes of radix 8 and one of 2, an
//   exchange through shared memory more than 512 points take: dearer than
//   log2 N says): 54.5 in two segments at r = 32 (153), 72.2 in three at
//   r = 128 (135); 150, so that the line paths keep r = 32 (47.4);
// - columns, 8, two a workgroup, three 512-point segments: 55.6-56.3 at r =
//   32-64 (143); break-even by the model at r = 53, where the slopes cross
//   at 47 (r = 48: 56.1 against 57.3; r = 56: 56.1 against 62.5).
// The other shapes keep the H200's fit from before that change (RGBA32F,
// 1080p, µs an axis, median of 30 runs of 20 repeats), where they err
// towards the line paths:
// - rows, 16: 76.0 for 2048 points (207); 16 an invocation at 512 points
//   took 84.2 (the register count, ~165, leaves the H200 fewer workgroups);
// - columns, 8, one a workgroup: 87.0 in three 512-point segments, 108.3
//   in two of 1024 (200, between their fits); columns cost about their
//   points, whatever the transform's length: each workgroup reads one
//   16-byte pixel a row, and the loads' sectors, not the arithmetic, set
//   the pace; two a workgroup took 64.0 there (154), four 70.7, and 256
//   points four a workgroup 70.1, 1024 points two 109.6: 256 invocations a
//   workgroup leave the H200 fewer subgroups (FftColumnsAWorkgroup);
// - columns, 16: 121.9 for 2048 points (180);
// - one channel pair a workgroup (4096 points at r = 1024): rows 188.4,
//   columns 337.9 (235 and 229 against the slopes; 200 and 195 here, as
//   the pairs run only at radii from ~500, where the line paths take ~1.2x
//   their slope's time a tap: 512 x 512 at r = 1024 took 161.3 µs with
//   both axes transformed, against 371.2 on the line paths).
constexpr double kFftKappaRows8 = 125, kFftKappaLongRows8 = 150, kFftKappaRows16 = 207;
constexpr double kFftKappaPairRows = 200;
constexpr double kFftKappaColumns8 = 200, kFftKappaColumnsTogether8 = 143;
constexpr double kFftKappaColumns16 = 180, kFftKappaPairColumns = 195;
// The most invocations FftColumnsAWorkgroup gives a workgroup.
constexpr uint32_t kFftMostColumnInvocations = 128;

absl::Mutex policy_mu;
std::optional<FftPolicy> policy_override ABSL_GUARDED_BY(policy_mu);

std::vector<std::byte> Blob(const std::vector<float>& values) {
  std::vector<std::byte> blob(values.size() * sizeof(float));
  std::memcpy(blob.data(), values.data(), blob.size());
  return blob;
}

}  // namespace

uint64_t FftLineSize(uint64_t n, uint64_t radius) {
  uint64_t size = kFftMinSize;
  while (size < n + 2 * radius) size *= 2;
  return size;
}

uint32_t FftMaxSize(const gpu::DeviceCaps& caps, uint32_t per_invocation, bool pairs,
                    uint32_t lines) {
  const uint32_t element = (pairs ? kPairElementBytes : kElementBytes) * lines;
  uint32_t size = 0;
  for (uint64_t s = kFftMinSize;
       s * element <= caps.max_compute_shared_memory_bytes &&
       s / per_invocation * lines <= caps.max_workgroup_invocations &&
       s / per_invocation <= caps.max_workgroup_size[1] && lines <= caps.max_workgroup_size[0];
       s *= 2) {
    size = static_cast<uint32_t>(s);
  }
  return size;
}

std::vector<float> FftTwiddles(uint32_t size) {
  std::vector<float> twiddles(2 * size_t{size});
  for (uint32_t t = 0; t < size; ++t) {
    const double angle = 2 * std::numbers::pi * t / size;
    twiddles[2 * t] = static_cast<float>(std::cos(angle));
    twiddles[2 * t + 1] = static_cast<float>(-std::sin(angle));
  }
  return twiddles;
}

std::vector<float> FftKernelSpectrum(const std::vector<double>& weights, uint32_t size) {
  std::vector<float> spectrum(size);
  // H is even (H[k] = H[N − k]): half of it, each by the recurrence
  // cos((t + 1)θ) = 2 cos θ · cos(tθ) − cos((t − 1)θ), in double (its error
  // grows ~t² · 1e-16: far below fp32's for any radius a line fits).
  for (uint32_t k = 0; k <= size / 2; ++k) {
    const double theta = 2 * std::numbers::pi * k / size;
    const double c1 = std::cos(theta);
    double before = 1, now = c1, sum = weights[0];
    for (size_t t = 1; t < weights.size(); ++t) {
      sum += 2 * weights[t] * now;
      const double next = 2 * c1 * now - before;
      before = now;
      now = next;
    }
    spectrum[k] = static_cast<float>(sum / size);
    if (k > 0) spectrum[size - k] = spectrum[k];
  }
  return spectrum;
}

FftSegments FftSegmentsOf(uint64_t n, uint64_t radius, uint64_t size) {
  FftSegments s;
  s.size = size;
  const uint64_t most = size - 2 * radius;  // outputs a segment at most
  s.segments = (n + most - 1) / most;
  s.segment = (n + s.segments - 1) / s.segments;
  return s;
}

double FftWork(const FftSegments& s) {
  return double(s.segments) * double(s.size) * std::log2(double(s.size)) / (2048.0 * 11.0);
}

uint32_t FftPerInvocation(uint64_t size) { return size <= 1024 ? 8 : 16; }

uint32_t FftColumnsAWorkgroup(const gpu::DeviceCaps& caps, uint64_t size, uint32_t per_invocation,
                              bool pairs) {
  for (const uint32_t lines : {4u, 2u}) {
    if (size / per_invocation * lines <= kFftMostColumnInvocations &&
        size <= FftMaxSize(caps, per_invocation, pairs, lines)) {
      return lines;
    }
  }
  return 1;
}

namespace {

double FftKappa(const FftShape& shape, bool columns) {
  if (shape.pairs) return columns ? kFftKappaPairColumns : kFftKappaPairRows;
  if (shape.per_invocation != 8) return columns ? kFftKappaColumns16 : kFftKappaRows16;
  if (!columns) return shape.cut.size > 512 ? kFftKappaLongRows8 : kFftKappaRows8;
  return shape.lines > 1 ? kFftKappaColumnsTogether8 : kFftKappaColumns8;
}

}  // namespace

double FftCost(const FftShape& shape, bool columns) {
  return FftKappa(shape, columns) * 2048.0 * FftWork(shape.cut);
}

std::optional<FftShape> FftCheapestShape(uint64_t n, uint64_t radius, bool columns,
                                         const gpu::DeviceCaps& caps, const FftPolicy& policy) {
  std::optional<FftShape> best;
  double best_cost = 0;
  const uint64_t whole = FftLineSize(n, radius);  // the line in one piece
  const uint64_t largest = std::max<uint64_t>(whole, policy.size);
  for (uint64_t size = kFftMinSize; size <= largest; size *= 2) {
    if (size <= 2 * radius || (policy.size != 0 && size != policy.size)) continue;
    // 256-point transforms only for lines they hold whole unless the policy
    // asks: in segments they lost on the H200 (1080p rows at r = 40, 11
    // segments a line: 54.8 µs against 50.7 on the line paths, where the
    // model said 0.8x; 32 invocations a workgroup).
    if (size < 512 && policy.size == 0 && whole > size) continue;
    FftShape shape;
    shape.per_invocation =
        policy.per_invocation != 0 ? policy.per_invocation : FftPerInvocation(size);
    // Both sequences a workgroup where they fit, else one (twice the
    // workgroups, half the shared memory each).
    shape.pairs = policy.pairs_always || size > FftMaxSize(caps, shape.per_invocation, false);
    if (size > FftMaxSize(caps, shape.per_invocation, true)) continue;
    if (columns) {
      shape.lines = policy.columns != 0
                        ? policy.columns
                        : FftColumnsAWorkgroup(caps, size, shape.per_invocation, shape.pairs);
      if (size > FftMaxSize(caps, shape.per_invocation, shape.pairs, shape.lines)) continue;
    }
    shape.cut = FftSegmentsOf(n, radius, size);
    const double cost = FftCost(shape, columns);
    if (!best || cost < best_cost) {
      best = shape;
      best_cost = cost;
    }
  }
  return best;
}

bool FftPays(uint64_t n, uint64_t radius, double cost) {
  return kFftMargin * (kLineFixed + double(2 * radius + 1)) * double(n) >= cost;
}

std::optional<StepKernel> PlanFftAxis(const BlurConfig& config, const LineLayout& layout) {
  const FftPolicy policy = FastFftPolicy();
  if (config.working != graph::PixelFormat::kRgba32F || layout.n == 0 || layout.lines == 0 ||
      config.radius < std::max(policy.from_radius, 0)) {
    return std::nullopt;
  }
  const uint64_t radius = static_cast<uint64_t>(config.radius);
  const bool columns = layout.in_pixel_stride != 1;
  const std::optional<FftShape> shape =
      FftCheapestShape(layout.n, radius, columns, config.caps, policy);
  if (!shape) return std::nullopt;
  if (policy.from_radius < 0 && !FftPays(layout.n, radius, FftCost(*shape, columns))) {
    return std::nullopt;
  }
  const FftSegments& cut = shape->cut;
  const uint64_t size = cut.size;
  const uint32_t per = shape->per_invocation;
  const bool pairs = shape->pairs;
  const uint32_t lines = shape->lines;
  const uint32_t threads = static_cast<uint32_t>(size / per);
  const uint64_t groups = DivideRoundingUp(layout.lines, lines) * cut.segments * (pairs ? 2 : 1);
  StepKernel k;
  k.layout = layout;
  k.shader = pairs ? (per == 8 ? kShaderFftPairs8 : kShaderFftPairs16)
                   : (per == 8 ? kShaderFft8 : kShaderFft16);
  k.spec.values = {threads, static_cast<uint32_t>(size), config.border, lines, 1, 1};
  k.groups_x =
      static_cast<uint32_t>(std::min<uint64_t>(groups, config.caps.max_workgroup_count[0]));
  k.groups_y = DivideRoundingUp(groups, k.groups_x);
  k.details = absl::StrCat(
      "FFT: a workgroup of ", threads, lines > 1 ? absl::StrCat(" x ", lines, " columns") : "",
      " per ",
      cut.segments > 1
          ? absl::StrCat("segment (", cut.segments, " a line of ", cut.segment, " pixels at most)")
          : std::string("line"),
      pairs ? " and channel pair" : "", ", ", size, "-point transforms (radix ", per, ") of ",
      pairs ? "red + i green or blue + i alpha" : "red + i green and blue + i alpha",
      ", the spectrum times the kernel's, and back; shared memory ",
      size * (pairs ? kPairElementBytes : kElementBytes) * lines, " bytes");
  return k;
}

bool IsFftStep(const StepKernel& k) {
  return k.shader >= kShaderFft16 && k.shader <= kShaderFftPairs8;
}

void StripTheFftTemporary(const BlurConfig& config, graph::PassPlan& plan, BlurPrepared& prepared) {
  if (!FastFftPolicy().strip_temporary || prepared.steps.size() != 2) return;
  StepKernel& rows = prepared.steps[0];
  StepKernel& columns = prepared.steps[1];
  if (!IsFftStep(rows) || !IsFftStep(columns) || rows.layout.in_pixel_stride != 1) return;
  const uint32_t strip = columns.spec.values[3];
  if (strip < 2) return;
  const uint32_t height = config.extent.height;
  const uint32_t width = DivideRoundingUp(config.extent.width, strip) * strip;
  plan.temp_extents = {{width, height}};
  // Rows: line y, pixel x -> y·S + (x / S)·S·H + x % S.
  rows.layout.out_line_stride = strip;
  rows.layout.out_pixel_stride = strip * height;
  rows.spec.values[kFftSpecOutStrip] = strip;
  // Columns: line x, pixel y -> (x / S)·S·H + x % S + y·S.
  columns.layout.in_line_stride = strip * height;
  columns.layout.in_pixel_stride = strip;
  columns.spec.values[kFftSpecInStrip] = strip;
  rows.details += absl::StrCat("; stores the temporary in strips of ", strip, " columns");
  columns.details += absl::StrCat("; loads the temporary in strips of ", strip, " columns");
}

void AddFftConstants(const std::vector<double>& weights, graph::PassPlan& plan,
                     BlurPrepared& prepared) {
  uint32_t blob_size = 0;  // the size of the last blobs added (axes of one size share them)
  int blob = -1;
  for (StepKernel& k : prepared.steps) {
    if (!IsFftStep(k)) continue;
    const uint32_t size = k.spec.values[1];
    if (size != blob_size) {
      blob = static_cast<int>(plan.constants.size());
      plan.constants.push_back(Blob(FftTwiddles(size)));
      plan.constants.push_back(Blob(FftKernelSpectrum(weights, size)));
      blob_size = size;
    }
    k.constants = blob;
  }
}

absl::Status RecordFftAxis(graph::RecordContext& ctx, const StepKernel& k, int radius) {
  const LineLayout& l = k.layout;
  FftPush push{l.n,
               l.lines,
               l.in_line_stride,
               l.in_pixel_stride,
               l.out_line_stride,
               l.out_pixel_stride,
               static_cast<uint32_t>(std::max(radius, 0)),
               0,
               0};
  const FftSegments cut = FftSegmentsOf(l.n, push.radius, k.spec.values[1]);
  push.segment = static_cast<uint32_t>(cut.segment);
  push.segments = static_cast<uint32_t>(cut.segments);
  const gpu::ShaderCode shader =
      k.shader == kShaderFftPairs16
          ? gpu::ShaderCode{"gaussian_blur_fft_pairs", kGaussianBlurFftPairsF32, 5, sizeof(FftPush)}
      : k.shader == kShaderFftPairs8
          ? gpu::ShaderCode{"gaussian_blur_fft_pairs_per8", kGaussianBlurFftPairsPer8F32, 5,
                            sizeof(FftPush)}
      : k.shader == kShaderFft8
          ? gpu::ShaderCode{"gaussian_blur_fft_per8", kGaussianBlurFftPer8F32, 5, sizeof(FftPush)}
          : gpu::ShaderCode{"gaussian_blur_fft", kGaussianBlurFftF32, 5, sizeof(FftPush)};
  // fast's blob 0: the fp32 weights (the guard's direct sums).
  const gpu::BufferSlice buffers[] = {ctx.read(0), ctx.write(0), ctx.constants(k.constants),
                                      ctx.constants(k.constants + 1), ctx.constants(0)};
  return ctx.Dispatch(shader, k.spec, buffers, push, k.groups_x, k.groups_y, 1);
}

FftPolicy FastFftPolicy() {
  absl::MutexLock lock(&policy_mu);
  return policy_override.value_or(kFftPolicy);
}

void SetFastFftPolicy(std::optional<FftPolicy> policy) {
  absl::MutexLock lock(&policy_mu);
  policy_override = policy;
}

}  // namespace rgfx::passes
