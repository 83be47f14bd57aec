// large_radius: a Gaussian at a cost independent of the radius, each axis
// by its own method. Where that axis's lines fit shared memory (and the
// device has relative subgroup shuffles) and radius >= kRecursiveMinRadius:
// the recursive path (shaders/gaussian_blur_recursive.comp,
// recursive_fit.h), one dispatch, unless the box stack would be more
// accurate. Otherwise the box stack:
//
// The Gaussian as a stack of centred boxes read from prefix
// sums. Every output pixel is Σ coeff_i · (S(x + w_i + 1) − S(x − w_i)) over
// at most kLargeRadiusBoxes boxes. Borders are exact: the prefix sum of the
// border-extended line is a closed form of the real line's (clamp, mirror,
// wrap, zero). Each axis is one step, by one of two paths:
// - fused (shaders/gaussian_blur_boxes_fused.comp), where a line fits shared
//   memory: one dispatch; a workgroup loads whole lines (rows, or a strip of
//   adjacent columns, so reads coalesce), scans them in shared memory and
//   writes every output once: the memory traffic of a copy.
// - two dispatches otherwise (shaders/gaussian_blur_prefix.comp, then
//   shaders/gaussian_blur_boxes.comp): the prefix sums of every line (fp32,
//   Kahan-compensated) into a temporary, then the boxes from it: two reads
//   and two writes per pixel plus 2·boxes cached reads.
// Both read and write along the memory's fast axis for rows and columns
// alike (no transposes); neither's cost depends on the radius.
#include "passes/blur_variants/large_radius.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "passes/blur_variants/blur_variant.h"
#include "passes/blur_variants/recursive_fit.h"
#include "passes/gaussian_weights.h"
#include "passes/pass_util.h"
#include "passes/shader_interface.h"
#include "kGaussianBlurBoxesF16.h"
#include "kGaussianBlurBoxesF32.h"
#include "kGaussianBlurBoxesFusedF16.h"
#include "kGaussianBlurBoxesFusedF32.h"
#include "kGaussianBlurPrefixF16.h"
#include "kGaussianBlurPrefixF32.h"
#include "kGaussianBlurRecursiveF16.h"
#include "kGaussianBlurRecursiveF32.h"
#include "kGaussianBlurRecursivePairsF16.h"
#include "kGaussianBlurRecursivePairsF32.h"

namespace rgfx::passes {

std::vector<double> BoxStack::Kernel(int radius) const {
  std::vector<double> k(radius + 1, 0.0);
  for (size_t i = 0; i < half_widths.size(); ++i) {
    for (int j = 0; j <= half_widths[i] && j <= radius; ++j) k[j] += coeffs[i];
  }
  return k;
}

namespace {

// Σ m_k·g_k, Σ m_k·g_k² and Σ m_k over taps 0..j−1 (m_0 = 1, else 2: the
// kernel is symmetric), so that a step's least-squares error is O(1).
struct TapSums {
  std::vector<double> g, g2, m;
  explicit TapSums(const std::vector<double>& weights) : g{0}, g2{0}, m{0} {
    for (size_t k = 0; k < weights.size(); ++k) {
      const double mk = k == 0 ? 1 : 2;
      g.push_back(g.back() + mk * weights[k]);
      g2.push_back(g2.back() + mk * weights[k] * weights[k]);
      m.push_back(m.back() + mk);
    }
  }
  // Σ m_k·(g_k − h)² over taps lo..hi, h their weighted mean (the step's
  // height).
  double StepError(int lo, int hi) const {
    const double sg = g[hi + 1] - g[lo], sm = m[hi + 1] - m[lo];
    return std::max(0.0, (g2[hi + 1] - g2[lo]) - sg * sg / sm);
  }
};

// Moves each breakpoint but the last (the radius) while that lowers the
// staircase's squared distance to the Gaussian, in steps from radius/8 down
// to 1 (coordinate descent from the equal-level start). The noise PSNR is
// that distance's; on photographs it measured +1.8 to +3.9 dB for 8 boxes
// at r = 64..1024 (docs/PERFORMANCE.md), at no cost on the GPU.
void RefineBreaks(const std::vector<double>& weights, std::vector<int>& breaks) {
  const TapSums sums(weights);
  // Steps i and i + 1 with breaks[i] = at; step i starts at lo.
  const auto pair_error = [&](size_t i, int lo, int at) {
    return sums.StepError(lo, at) + sums.StepError(at + 1, breaks[i + 1]);
  };
  const int radius = breaks.back();
  for (int step = std::max(1, radius / 8); step >= 1; step /= 2) {
    // Each accepted move lowers the error by a relative 1e-12 at least, so
    // this ends; the cap is a guard.
    for (int round = 0, moved = 1; moved && round < 1000; ++round) {
      moved = 0;
      for (size_t i = 0; i + 1 < breaks.size(); ++i) {
        for (int d : {-step, step}) {
          const int at = breaks[i] + d;
          const int lo = i > 0 ? breaks[i - 1] + 1 : 0;
          if (at < lo || at >= breaks[i + 1]) continue;
          if (pair_error(i, lo, at) < pair_error(i, lo, breaks[i]) * (1 - 1e-12)) {
            breaks[i] = at;
            moved = 1;
          }
        }
      }
    }
  }
}

}  // namespace

BoxStack ChooseBoxStack(int radius, double sigma, int levels) {
  const std::vector<double> g = GaussianWeights(radius, sigma);  // 0..radius, Σ over ±k = 1
  std::vector<int> breaks;
  if (radius + 1 <= levels) {
    for (int k = 0; k <= radius; ++k) breaks.push_back(k);
  } else {
    const double lo = g[radius], hi = g[0];
    int k = 0;
    for (int j = 1; j < levels; ++j) {
      const double threshold = hi - (hi - lo) * j / levels;
      while (k < radius && g[k + 1] >= threshold) ++k;
      if (k < radius && (breaks.empty() || breaks.back() != k)) breaks.push_back(k);
    }
    breaks.push_back(radius);
    RefineBreaks(g, breaks);
  }
  // Step heights: the mean weight over the taps each step covers (tap 0
  // once, the others twice: the kernel is symmetric).
  std::vector<double> height;
  int start = 0;
  for (int b : breaks) {
    double sum = 0, count = 0;
    for (int k = start; k <= b; ++k) {
      const double m = k == 0 ? 1 : 2;
      sum += m * g[k];
      count += m;
    }
    height.push_back(sum / count);
    start = b + 1;
  }
  BoxStack stack;
  stack.half_widths = breaks;
  for (size_t i = 0; i < height.size(); ++i) {
    stack.coeffs.push_back(height[i] - (i + 1 < height.size() ? height[i + 1] : 0.0));
  }
  return stack;
}

namespace {

// Σ m_k·a_k·b_k over taps 0..min length (m_0 = 1, else 2): the inner
// product of the symmetric kernels whose halves a and b are.
double HalfKernelDot(const std::vector<double>& a, const std::vector<double>& b) {
  double dot = 0;
  for (size_t k = 0; k < a.size() && k < b.size(); ++k) dot += (k == 0 ? 1 : 2) * a[k] * b[k];
  return dot;
}

// Uniform noise in [0, 1] has variance 1/12: the error's mean square is
// the error kernel's squared norm over 12.
double NoisePsnr(double squared_norm) {
  const double mse = std::max(squared_norm, 0.0) / 12.0;
  return mse > 1e-30 ? -10.0 * std::log10(mse) : std::numeric_limits<double>::infinity();
}

}  // namespace

double KernelNoisePsnr(const std::vector<double>& a, const std::vector<double>& b,
                       bool both_axes) {
  if (both_axes) return MixedKernelNoisePsnr(a, b, b);
  return NoisePsnr(HalfKernelDot(a, a) - 2 * HalfKernelDot(a, b) + HalfKernelDot(b, b));
}

double MixedKernelNoisePsnr(const std::vector<double>& exact, const std::vector<double>& rows,
                            const std::vector<double>& columns) {
  // ‖g⊗g − r⊗c‖² = ‖g‖⁴ − 2⟨g, r⟩⟨g, c⟩ + ‖r‖²‖c‖².
  const double gg = HalfKernelDot(exact, exact);
  return NoisePsnr(gg * gg - 2 * HalfKernelDot(exact, rows) * HalfKernelDot(exact, columns) +
                   HalfKernelDot(rows, rows) * HalfKernelDot(columns, columns));
}

double PrefixRoundingPsnr(const BoxStack& stack, int radius, int n_max, bool both_axes,
                          double roundings_per_sum) {
  const double magnitude = std::max(1, n_max + 2 * radius);
  const double ulp = std::ldexp(1.0, static_cast<int>(std::floor(std::log2(magnitude))) - 23);
  double c2 = 0;
  for (double c : stack.coeffs) c2 += c * c;
  // Two sums per box, each `roundings_per_sum` uniform errors of ulp²/12.
  const double mse = (both_axes ? 2 : 1) * c2 * 2 * roundings_per_sum * ulp * ulp / 12;
  return -10.0 * std::log10(mse);
}

namespace {

// Segment totals the fused shader keeps in shared memory (its kTotals): one
// per chunk of a line's segments that share a subgroup.
uint64_t FusedTotals(uint64_t lines, uint64_t threads, uint64_t subgroup_size, bool columns) {
  const uint64_t segments = threads / lines;
  const uint64_t chunk =
      columns ? std::max<uint64_t>(1, subgroup_size / lines) : std::min(subgroup_size, segments);
  return lines * (segments / chunk);
}

// Must match the shared arrays of gaussian_blur_boxes_fused.comp: the lines'
// n + 1 sums, the segment totals, mean/first/last per line (vec4 each) and
// the box table (kLargeRadiusBoxes vec2).
uint64_t FusedSharedBytes(uint64_t n, uint64_t lines, uint64_t totals) {
  return 16 * (lines * (n + 1) + totals + 3 * lines) + 8 * kLargeRadiusBoxes;
}

}  // namespace

FusedGeometry ChooseFusedGeometry(uint32_t n, uint32_t lines, uint32_t shared_bytes,
                                  uint32_t max_invocations, uint32_t subgroup_size) {
  FusedGeometry g;
  // 256 invocations: enough to hide the scan's barriers and few enough that
  // several workgroups share a multiprocessor beside their ~35 KB.
  uint32_t threads = 1;
  while (threads * 2 <= std::min(256u, max_invocations)) threads *= 2;
  if (threads < kLargeRadiusBoxes || n == 0) return g;  // the box table is loaded by lane
  // The scan shuffles within subgroups and numbers invocations by subgroup
  // and lane: whole subgroups only. Without shuffles the two-dispatch path
  // runs.
  if (subgroup_size == 0 || subgroup_size > threads || threads % subgroup_size != 0) return g;
  // Lines per workgroup: up to 16 (16 RGBA16F pixels fill a 128-byte
  // memory line, so a strip of columns reads whole lines), no more than the
  // image has, as many as fit.
  uint32_t wanted = 1;
  while (wanted < 16 && wanted < lines && wanted * 2 <= threads) wanted *= 2;
  const uint32_t rounded =
      (n + kFusedCapacityStep - 1) / kFusedCapacityStep * kFusedCapacityStep;
  for (uint32_t l = wanted; l >= 1; l /= 2) {
    // The chunks differ for rows and columns (which lanes share a line);
    // the larger count bounds both.
    const uint64_t totals = std::max(FusedTotals(l, threads, subgroup_size, false),
                                     FusedTotals(l, threads, subgroup_size, true));
    for (const uint32_t capacity : {rounded, n}) {
      if (FusedSharedBytes(capacity, l, totals) > shared_bytes) continue;
      g.threads = threads;
      g.lines_per_group = l;
      g.capacity = capacity;
      const uint32_t segments = threads / l;
      g.segment = (capacity + segments - 1) / segments;
      if (g.segment % 2 == 0) ++g.segment;  // odd: neighbours scan in different banks
      g.shared_bytes = static_cast<uint32_t>(FusedSharedBytes(capacity, l, totals));
      g.subgroup_size = subgroup_size;
      return g;
    }
  }
  return g;
}

double FusedScanRoundings(const FusedGeometry& g) {
  const uint32_t segments = g.threads / std::max(1u, g.lines_per_group);
  int levels = 0;
  while ((1u << levels) < segments) ++levels;
  // Subtracting the mean, Kahan's ~1.5, the tree's levels and the sum of
  // the within-chunk and across-chunk prefixes.
  return 1 + kKahanScanRoundings + levels + 1;
}

namespace {
bool boxes_only = false;
uint32_t strip_temporary = 1;  // SetLargeRadiusStripTemporary: 1 the plan's rule
uint32_t max_chunk_override = 0;
}  // namespace

void SetLargeRadiusBoxesOnly(bool value) { boxes_only = value; }
void SetLargeRadiusStripTemporary(uint32_t strip) { strip_temporary = strip; }

void SetLargeRadiusMaxChunk(uint32_t most) {
  max_chunk_override =
      most == 0 ? 0 : std::clamp(most, kRecursiveMinChunkCap, kRecursiveMaxChunkCap);
}

uint32_t RecursiveMaxChunk(bool columns, uint32_t pixel_bytes) {
  if (max_chunk_override != 0) return max_chunk_override;
  return columns && pixel_bytes == 8 ? kRecursiveChunkHalfColumns : kRecursiveChunk;
}

uint32_t RecursiveMaxChunk() {
  return max_chunk_override != 0 ? max_chunk_override
                                 : std::max(kRecursiveChunk, kRecursiveChunkHalfColumns);
}

RecursiveGeometry ChooseRecursiveGeometry(uint32_t n, uint32_t lines, bool columns,
                                          uint32_t extend, uint32_t margin, uint32_t pixel_bytes,
                                          uint32_t shared_bytes,
                                          uint32_t max_invocations, uint32_t subgroup_size) {
  RecursiveGeometry g;
  if (n == 0 || subgroup_size == 0 || (subgroup_size & (subgroup_size - 1)) != 0) return g;
  const uint64_t domain = uint64_t{n} + 2ull * extend;
  const uint32_t most_chunk = RecursiveMaxChunk(columns, pixel_bytes);
  const uint64_t chunks = (domain + most_chunk - 1) / most_chunk;
  const uint64_t slots = (chunks + subgroup_size - 1) / subgroup_size * subgroup_size;
  // The line spread evenly over the slots, not chunks of 16 with whole
  // idle invocations (1080 rows: 90 chunks of 12 instead of 68 of 16 and 28
  // idle; 1920 px: 128 of 15 instead of 120 of 16). On the H100 at 1080p
  // the vertical pass went 59.4 -> 50.4 µs, the horizontal 42.5 -> 40.2.
  // From the length rounded up as capacities are, so that nearby lengths
  // share a pipeline (slots · 16 is a multiple of 64: still <= 16 px).
  const auto round_up = [](uint64_t length) {
    return uint64_t{DivideRoundingUp(length, kFusedCapacityStep)} * kFusedCapacityStep;
  };
  uint64_t chunk = DivideRoundingUp(round_up(domain), static_cast<uint32_t>(slots));
  // Other caps than 16 (RGBA16F columns' 17, measurements) may not divide
  // the rounding: then the exact length, spread the same way, stays within
  // the cap.
  if (chunk > most_chunk) chunk = DivideRoundingUp(domain, static_cast<uint32_t>(slots));
  const uint32_t most = std::min(1024u, max_invocations);
  // Must match the shared arrays of gaussian_blur_recursive.comp: the strip
  // (room for one spare pixel per chunk) and two vec4 carries per line,
  // subgroup and direction.
  const auto bytes = [&](uint64_t l, uint64_t capacity) {
    return l * (capacity + capacity / chunk + 1) * pixel_bytes +
           2 * 2 * 16 * l * (slots / subgroup_size);
  };
  // Rows one line per workgroup, columns a strip of up to 2 (measured on
  // the H100 at 1080p and 4K, RGBA16F and RGBA32F, against 1 to 8 of each:
  // wider workgroups hold ~100 registers per invocation, so fewer fit a
  // multiprocessor and the last round of workgroups runs nearly alone; one
  // column alone reads 8- or 16-byte pieces of rows).
  const uint64_t widest = columns ? 2 : 1;
  // The widest strip first; with the full margins where they fit and cost
  // no occupancy (RecursiveResidentWorkgroups), else, for lines not
  // extended, one-pixel margins on the same terms, else none. Each at the
  // rounded capacity where that costs no occupancy, else the exact one
  // (RGBA32F rows of 1,920 px: one-pixel margins rounded to 1,984 px would
  // let 2 workgroups run at once instead of 3, 1,922 px keep 3).
  for (uint64_t l = widest; l >= 1; l /= 2) {
    if (l > 1 && l / 2 >= lines) continue;
    if (l * slots > most) continue;
    const uint64_t plain = bytes(l, round_up(n)) <= shared_bytes ? round_up(n) : n;
    if (bytes(l, plain) > shared_bytes) continue;
    const uint32_t threads = static_cast<uint32_t>(l * slots);
    const uint32_t resident = RecursiveResidentWorkgroups(bytes(l, plain), threads, pixel_bytes);
    // The capacity of a strip with margins m that fits and costs no
    // occupancy, or 0.
    const auto costless = [&](uint64_t m) -> uint64_t {
      const uint64_t stored = uint64_t{n} + 2 * m;
      for (const uint64_t capacity : {round_up(stored), stored}) {
        if (bytes(l, capacity) <= shared_bytes &&
            RecursiveResidentWorkgroups(bytes(l, capacity), threads, pixel_bytes) >= resident) {
          return capacity;
        }
      }
      return 0;
    };
    uint64_t capacity = plain;
    if (const uint64_t full = margin != 0 ? costless(margin) : 0; full != 0) {
      capacity = full;
      g.margin = margin;
    } else if (const uint64_t one = extend == 0 ? costless(1) : 0; one != 0) {
      capacity = one;
      g.margin = 1;
      g.clamped_reads = true;
    }
    g.threads = threads;
    g.lines_per_group = static_cast<uint32_t>(l);
    g.capacity = static_cast<uint32_t>(capacity);
    g.chunks = static_cast<uint32_t>(slots);
    g.chunk = static_cast<uint32_t>(chunk);
    g.shared_bytes = static_cast<uint32_t>(bytes(l, capacity));
    return g;
  }
  return g;
}

uint32_t RecursiveResidentWorkgroups(uint64_t shared_bytes, uint32_t threads,
                                     uint32_t pixel_bytes) {
  // The H100 driver's register counts for this kernel (86-94 an invocation
  // in RGBA16F, 101-107 in RGBA32F), allocated in steps of 8, out of 64K
  // registers a multiprocessor; and the shared memory its workgroups got
  // there: 100 KB a multiprocessor, 1 KB of it reserved per workgroup (as
  // CUDA documents for this architecture), reproduces every occupancy
  // change measured (RGBA32F rows of 1920 px ran 3 workgroups of 33.0 KB
  // at once, but 2 of 34.1 KB: 48.1 against 58.4 µs).
  constexpr uint64_t kRegisters = 65536, kSharedPerMultiprocessor = 100 << 10,
                     kReservedPerWorkgroup = 1 << 10;
  const uint64_t per_invocation = pixel_bytes > 8 ? 112 : 96;
  const uint64_t by_registers = kRegisters / (per_invocation * std::max(threads, 1u));
  const uint64_t by_shared = kSharedPerMultiprocessor / (shared_bytes + kReservedPerWorkgroup);
  return static_cast<uint32_t>(std::min(by_registers, by_shared));
}

double RecursiveRoundingPsnr(const RecursiveFit& fit, int radius, int n_max, bool both_axes,
                             uint32_t chunk) {
  const double decay = std::abs(fit.pole);
  const double magnitude = (1 - std::pow(decay, radius + 1)) / (1 - decay);  // Σ|p|^k
  const double steps = std::min<double>(std::max(1, n_max), 1 / (1 - decay));
  const double ulp = std::ldexp(magnitude, -23);
  // w runs backwards through 1/p within each chunk: its errors grow by
  // |p|^-j after j steps; the mean square over a chunk.
  double growth = 0;
  const uint32_t steps_in_chunk = std::max(chunk, 1u);
  for (uint32_t j = 0; j < steps_in_chunk; ++j) growth += std::pow(decay, -2.0 * j);
  growth /= steps_in_chunk;
  // Two recursions per axis, each output |c|·(state error); per step a
  // rounding of up to half an ulp in each of the state's parts.
  const double per_axis = std::norm(fit.coefficient) * 2 * steps * ulp * ulp / 12 * (1 + growth);
  const double mse = (both_axes ? 2 : 1) * per_axis;
  return -10.0 * std::log10(mse);
}

namespace {

using graph::StepResource;

// Must match the push_constant blocks of gaussian_blur_prefix.comp and
// gaussian_blur_boxes.comp.
struct PrefixPush {
  uint32_t n;            // pixels per line
  uint32_t lines;
  uint32_t line_stride;  // in pixels
  uint32_t pixel_stride;
  uint32_t segment;      // pixels per invocation (prefix) or unused
  uint32_t border;
  uint32_t boxes;
};

// Invocations: (lines, segments of a line) for the prefix sums.
constexpr uint32_t kBoxGroupX = 64, kBoxGroupY = 4;

// StepKernel::shader: 0 (the default) is the two-dispatch path.
constexpr int kShaderFused = 1;
constexpr int kShaderRecursive = kLargeRadiusRecursiveShader;
// The recursive kernel on two channels a workgroup (CHANNEL_PAIRS), two
// neighbouring workgroups a row: rows whose whole pixels do not fit shared
// memory. Not columns: one column a workgroup reading 8 of every 16 bytes
// ran 2-3x slower than the box stack on the H100 (4096² RGBA32F 2,396
// against 817 µs; 8192² RGBA16F 5,075 against 2,979).
constexpr int kShaderRecursivePairs = 3;

// The recursion's constants (vec2 each): p, q = p^(radius+1), c,
// Σ_{k=0..radius} p^k, (center, 0), 1/p.
std::vector<std::byte> RecursionConstants(const RecursiveFit& fit, int radius) {
  const std::complex<double> q = std::pow(fit.pole, radius + 1);
  const std::complex<double> sum = (1.0 - q) / (1.0 - fit.pole);
  const float values[] = {float(fit.pole.real()),        float(fit.pole.imag()),
                          float(q.real()),               float(q.imag()),
                          float(fit.coefficient.real()), float(fit.coefficient.imag()),
                          float(sum.real()),             float(sum.imag()),
                          float(fit.center),             0.0f,
                          float((1.0 / fit.pole).real()), float((1.0 / fit.pole).imag())};
  std::vector<std::byte> blob(sizeof(values));
  std::memcpy(blob.data(), values, sizeof(values));
  return blob;
}

// The stated PSNR of two independent error sources.
double CombinedPsnr(double a, double b) {
  return -10.0 * std::log10(std::pow(10.0, -a / 10) + std::pow(10.0, -b / 10));
}

struct AxisLayout {
  std::string label;
  uint32_t n, lines, line_stride, pixel_stride;
};

std::vector<AxisLayout> Axes(const BlurConfig& c) {
  const uint32_t w = c.extent.width, h = c.extent.height;
  const AxisLayout rows{"horizontal", w, h, w, 1}, columns{"vertical", h, w, 1, w};
  if (c.axes == "horizontal") return {rows};
  if (c.axes == "vertical") return {columns};
  return {rows, columns};
}

// One axis's method: the recursion where the axis can run it (and the
// recursion is wanted at all), else the box stack, fused where the line's
// sums fit shared memory, else in two dispatches.
struct AxisMethod {
  AxisLayout axis;
  bool recursive = false;
  RecursiveGeometry recursion;  // recursive
  bool pairs = false;           // recursive, two channels a workgroup
  FusedGeometry fused;          // box stack; lines_per_group 0: two dispatches
  bool rows() const { return axis.pixel_stride == 1; }
  bool two_dispatches() const { return !recursive && fused.lines_per_group == 0; }
};

// The recursive geometry for one axis: whole pixels where they fit, else,
// for rows, two channels a workgroup (half the shared memory a pixel).
// False where neither fits the device.
bool PlanRecursiveAxis(const BlurConfig& config, uint32_t extend, AxisMethod& m) {
  const AxisLayout& a = m.axis;
  const uint32_t pixel_bytes = config.working == graph::PixelFormat::kRgba32F ? 16 : 8;
  for (const uint32_t bytes : {pixel_bytes, m.rows() ? pixel_bytes / 2 : 0u}) {
    if (bytes == 0) break;
    const RecursiveGeometry g = ChooseRecursiveGeometry(
        a.n, a.lines, !m.rows(), extend, extend + static_cast<uint32_t>(config.radius) + 1, bytes,
        config.caps.max_compute_shared_memory_bytes, config.caps.max_workgroup_invocations,
        config.caps.subgroup_size);
    if (g.lines_per_group == 0) continue;
    const bool pairs = bytes != pixel_bytes;
    if (g.threads > config.caps.max_workgroup_size[0] ||
        uint64_t{DivideRoundingUp(a.lines, g.lines_per_group)} * (pairs ? 2 : 1) >
            config.caps.max_workgroup_count[0]) {
      return false;
    }
    m.recursive = true;
    m.recursion = g;
    m.pairs = pairs;
    return true;
  }
  return false;
}

// The box stack's fused geometry for one axis (lines_per_group 0 where the
// line's sums do not fit, or the device cannot run it: two dispatches).
FusedGeometry PlanFusedAxis(const BlurConfig& config, const AxisLayout& a) {
  FusedGeometry g = ChooseFusedGeometry(
      a.n, a.lines, config.caps.max_compute_shared_memory_bytes,
      config.caps.max_workgroup_invocations,
      config.caps.subgroup_shuffle_relative ? config.caps.subgroup_size : 0);
  if (g.lines_per_group != 0 &&
      (g.threads > config.caps.max_workgroup_size[0] ||
       DivideRoundingUp(a.lines, g.lines_per_group) > config.caps.max_workgroup_count[0])) {
    g = {};
  }
  return g;
}

class LargeRadiusBlur final : public BlurVariant {
 private:
  // The recursion's fit where the plan may use it on any axis: the radius
  // and device allow it, its backward pass's rounding growth is bounded,
  // and its kernel is more accurate than the box stack's. Else nullopt.
  static std::optional<RecursiveFit> WantedRecursion(const BlurConfig& config,
                                                     const std::vector<double>& exact,
                                                     const BoxStack& stack) {
    if (boxes_only || config.radius < kRecursiveMinRadius ||
        !config.caps.subgroup_shuffle_relative) {
      return std::nullopt;
    }
    RecursiveFit fit = FitRecursiveGaussian(config.radius, config.sigma);
    // The shader runs w backwards through 1/p within each chunk: its
    // rounding errors grow by |p|^-chunk at most (RecursiveMaxChunk()),
    // held <= 256 (sigma >= ~3 px for sigma = radius / 2).
    if (std::pow(std::abs(fit.pole), RecursiveMaxChunk()) < 1.0 / kRecursiveMaxGrowth) {
      return std::nullopt;
    }
    if (KernelNoisePsnr(exact, stack.Kernel(config.radius), false) >
        KernelNoisePsnr(exact, fit.Kernel(config.radius), false)) {
      return std::nullopt;
    }
    return fit;
  }

  static StepKernel RecursiveStep(const BlurConfig& config, const AxisMethod& m,
                                  uint32_t extend, const RecursiveFit& fit) {
    const AxisLayout& a = m.axis;
    const RecursiveGeometry& g = m.recursion;
    StepKernel k;
    k.layout = {a.n, a.lines, a.line_stride, a.pixel_stride, a.line_stride, a.pixel_stride};
    k.shader = m.pairs ? kShaderRecursivePairs : kShaderRecursive;
    k.spec.values = {g.threads,
                     g.lines_per_group,
                     g.capacity,
                     m.rows() ? 0u : 1u,
                     config.caps.subgroup_size,
                     extend != 0 ? 1u : 0u,
                     g.chunk,
                     g.margin == 0     ? 0u
                     : g.clamped_reads ? 2u
                                       : 1u,
                     1u,
                     1u};
    k.groups_x = DivideRoundingUp(a.lines, g.lines_per_group) * (m.pairs ? 2 : 1);
    k.segment = extend;  // the shader's pc.extend
    const std::string margins =
        g.clamped_reads ? std::string(" with margins of 1 px, reads clamped to them")
        : g.margin      ? absl::StrCat(" with margins of ", g.margin, " px")
                        : std::string(" without margins (reads checked)");
    k.details = absl::StrCat(
        "recursive: one dispatch, ", g.lines_per_group, m.rows() ? " rows" : " columns",
        m.pairs ? " and two channels" : "", " per workgroup of ", g.threads, " (chunks of ",
        g.chunk, " px, ", g.chunks, " per line",
        extend ? absl::StrCat(", the line extended by ", extend, " px each side") : std::string(),
        "), lines in shared memory", margins, " (", g.shared_bytes, " bytes); pole ",
        absl::StrFormat("%.6f%+.6fi", fit.pole.real(), fit.pole.imag()));
    return k;
  }

  // Spec constants of gaussian_blur_recursive.comp: the temporary's strips
  // as the step reads (in) and writes (out) it; 1: the image's own layout.
  static constexpr size_t kSpecInStrip = 8, kSpecOutStrip = 9;

  // SetLargeRadiusStripTemporary's strips, where both axes are recursive
  // and the columns several a workgroup.
  static void StripTheRecursiveTemporary(const BlurConfig& config,
                                         const std::vector<AxisMethod>& methods,
                                         graph::PassPlan& plan, BlurPrepared& prepared) {
    if (strip_temporary == 0 || methods.size() != 2 || !methods[0].recursive ||
        !methods[1].recursive || !methods[0].rows()) {
      return;
    }
    const uint32_t lines = methods[1].recursion.lines_per_group;
    // A measurement's strips, where they hold whole column workgroups.
    if (strip_temporary >= 2 && strip_temporary % lines != 0) return;
    const uint32_t strip = strip_temporary >= 2 ? strip_temporary : lines;
    // The rule: only where a strip's row is a whole 32-byte sector at least:
    // the rows then store whole sectors. H100, 1080p r = 64, µs rows +
    // columns, image layout -> strips: RGBA32F 44.0 + 58.6 -> 47.1 + 52.5;
    // RGBA16F (16-byte pieces) 29.7 + 43.3 -> 39.2 + 38.4, a loss.
    const uint32_t pixel_bytes = config.working == graph::PixelFormat::kRgba32F ? 16 : 8;
    if (strip < 2 || (strip_temporary == 1 && strip * pixel_bytes < 32)) return;
    plan.temp_extents[0].width = DivideRoundingUp(config.extent.width, strip) * strip;
    prepared.steps[0].spec.values[kSpecOutStrip] = strip;
    prepared.steps[1].spec.values[kSpecInStrip] = strip;
    prepared.steps[0].details +=
        absl::StrCat("; stores the temporary in strips of ", strip, " columns");
    prepared.steps[1].details +=
        absl::StrCat("; loads the temporary in strips of ", strip, " columns");
  }

  static StepKernel BoxStep(const BlurConfig& config, const AxisMethod& m, size_t boxes) {
    const AxisLayout& a = m.axis;
    const FusedGeometry& g = m.fused;
    StepKernel k;
    k.layout = {a.n, a.lines, a.line_stride, a.pixel_stride, a.line_stride, a.pixel_stride};
    if (g.lines_per_group != 0) {
      k.shader = kShaderFused;
      k.spec.values = {g.threads, g.lines_per_group, g.capacity,
                       g.segment, m.rows() ? 0u : 1u, g.subgroup_size};
      k.groups_x = DivideRoundingUp(a.lines, g.lines_per_group);
      k.details = absl::StrCat("fused: one dispatch, ", g.lines_per_group,
                               m.rows() ? " rows" : " columns", " per workgroup of ", g.threads,
                               ", prefix sums in shared memory (", g.shared_bytes,
                               " bytes; mean-free, scanned in segments of ", g.segment,
                               " px, shuffles within subgroups of ", g.subgroup_size, "); ",
                               boxes, " boxes");
      return k;
    }
    // Prefix sums: rows (pixel stride 1) one line per workgroup, up to 1024
    // segments of ≥ 8 px; columns 16 adjacent lines per workgroup (16
    // RGBA16F pixels fill a 128-byte line: their reads coalesce) times up
    // to 64 segments of ≥ 16 px, so a 1080p image has ~100k invocations.
    const uint32_t max_group = std::min(1024u, config.caps.max_workgroup_invocations);
    const uint32_t lanes = m.rows() ? 1 : std::min(16u, max_group);
    uint32_t segments = 1;
    const uint32_t min_segment = m.rows() ? 8 : 16;
    while (segments * 2 * lanes <= max_group && segments * 2 <= config.caps.max_workgroup_size[1] &&
           segments * 2 * min_segment <= a.n) {
      segments *= 2;
    }
    k.spec.values = {lanes, segments};
    k.groups_x = DivideRoundingUp(a.lines, lanes);
    k.groups_y = (a.n + segments - 1) / segments;  // the segment length, in pixels
    k.details = absl::StrCat("two dispatches (lines of ", a.n, " px do not fit ",
                             config.caps.max_compute_shared_memory_bytes,
                             " bytes of shared memory): prefix sums: ", lanes, " lines x ",
                             segments, " segments of ", k.groups_y, " px per workgroup; ", boxes,
                             " boxes");
    return k;
  }

 public:
  std::string_view name() const override { return "large_radius"; }
  bool exact() const override { return false; }
  std::string Note() const override {
    const BoxStack s = ChooseBoxStack(64, 32);
    const RecursiveFit fit = FitRecursiveGaussian(64, 32);
    const std::vector<double> g = GaussianWeights(64, 32);
    return absl::StrFormat(
        "large_radius: cost independent of the radius, approximate, by one of two methods per "
        "axis. Recursive (radius >= %d, where the axis's lines fit shared memory and the device "
        "has relative subgroup shuffles): the half kernel as a damped cosine Re(c p^k), a "
        "complex first-order recursion with a delayed subtraction that truncates it where the "
        "Gaussian is truncated, run forwards and backwards through each line in chunks joined "
        "by a scan; e.g. radius 64, sigma 32 expected PSNR %.1f dB against exact on uniform "
        "noise, photographs measured 83-92 dB for radius 16-1024. Otherwise a staircase of at "
        "most %d centred boxes read from the line's fp32 prefix sums (any line length): %.1f "
        "dB at radius 64, photographs 69-76 dB. Each axis takes the more accurate where both "
        "can run on it, and the plan states the PSNR of the pair (fp32 rounding included); "
        "borders exact",
        kRecursiveMinRadius, KernelNoisePsnr(g, fit.Kernel(64), true), kLargeRadiusBoxes,
        KernelNoisePsnr(g, s.Kernel(64), true));
  }

  absl::Status Plan(const BlurConfig& config, graph::PassPlan& plan,
                    BlurPrepared& prepared) const override {
    const std::vector<double> exact = GaussianWeights(config.radius, config.sigma);
    const BoxStack stack = ChooseBoxStack(config.radius, config.sigma);
    const std::optional<RecursiveFit> fit = WantedRecursion(config, exact, stack);
    const bool extended =
        config.border == RGFX_BORDER_MIRROR || config.border == RGFX_BORDER_WRAP;
    // The recursion runs over the line extended by radius + 1 each side for
    // mirror and wrap; the box stack's closed-form borders need none.
    const uint32_t extend = extended ? static_cast<uint32_t>(config.radius) + 1 : 0;

    std::vector<AxisMethod> methods;
    for (const AxisLayout& a : Axes(config)) {
      AxisMethod m{a};
      if (!fit || !PlanRecursiveAxis(config, extend, m)) m.fused = PlanFusedAxis(config, a);
      methods.push_back(m);
    }
    const bool both = methods.size() == 2;
    const bool any_recursive = std::any_of(methods.begin(), methods.end(),
                                           [](const AxisMethod& m) { return m.recursive; });
    const bool any_boxes = std::any_of(methods.begin(), methods.end(),
                                       [](const AxisMethod& m) { return !m.recursive; });
    const bool any_two_dispatch = std::any_of(
        methods.begin(), methods.end(), [](const AxisMethod& m) { return m.two_dispatches(); });

    // Constants: the recursion's, then the box table, each where some axis
    // reads it.
    int recursion_constants = -1, box_constants = -1;
    if (any_recursive) {
      recursion_constants = static_cast<int>(plan.constants.size());
      plan.constants.push_back(RecursionConstants(*fit, config.radius));
    }
    if (any_boxes) {
      std::vector<float> table;
      for (size_t i = 0; i < stack.coeffs.size(); ++i) {
        table.push_back(static_cast<float>(stack.coeffs[i]));
        table.push_back(static_cast<float>(stack.half_widths[i]));
      }
      std::vector<std::byte> blob(table.size() * sizeof(float));
      std::memcpy(blob.data(), table.data(), blob.size());
      box_constants = static_cast<int>(plan.constants.size());
      plan.constants.push_back(std::move(blob));
      prepared.half_taps = static_cast<int>(stack.coeffs.size());
    }

    // Temporaries: the intermediate between the axes, then the two-dispatch
    // path's prefix sums (vec4 fp32: two RGBA16F pixels' worth per pixel)
    // where an axis takes it.
    const graph::Extent e = config.extent;
    const bool f32 = config.working == graph::PixelFormat::kRgba32F;
    if (both) plan.temp_extents.push_back(e);
    const StepResource sums = StepResource::Temp(static_cast<int>(plan.temp_extents.size()));
    if (any_two_dispatch) plan.temp_extents.push_back({f32 ? e.width : 2 * e.width, e.height});
    for (size_t axis = 0; axis < methods.size(); ++axis) {
      const AxisMethod& m = methods[axis];
      const StepResource in = axis == 0 ? StepResource::Input(0) : StepResource::Temp(0);
      std::vector<StepResource> out = {both && axis == 0 ? StepResource::Temp(0)
                                                         : StepResource::Output(0)};
      if (m.two_dispatches()) out.push_back(sums);
      plan.steps.push_back({m.axis.label, {in}, out});
      StepKernel k = m.recursive ? RecursiveStep(config, m, extend, *fit)
                                 : BoxStep(config, m, stack.coeffs.size());
      k.constants = m.recursive ? recursion_constants : box_constants;
      prepared.steps.push_back(k);
    }
    StripTheRecursiveTemporary(config, methods, plan, prepared);

    // What the plan states: the kernels' error on noise, and each axis's
    // fp32 rounding (independent sources: their mean squares add).
    std::vector<std::vector<double>> kernels;
    double rounding_mse = 0;
    for (const AxisMethod& m : methods) {
      kernels.push_back(m.recursive ? fit->Kernel(config.radius) : stack.Kernel(config.radius));
      const double rounding_psnr =
          m.recursive
              ? RecursiveRoundingPsnr(*fit, config.radius, m.axis.n + 2 * extend, false,
                                      m.recursion.chunk)
              : PrefixRoundingPsnr(stack, config.radius, m.axis.n, false,
                                   m.two_dispatches() ? kKahanScanRoundings
                                                      : FusedScanRoundings(m.fused));
      rounding_mse += std::pow(10.0, -rounding_psnr / 10);
    }
    const double kernel_psnr = both ? MixedKernelNoisePsnr(exact, kernels[0], kernels[1])
                                    : KernelNoisePsnr(exact, kernels[0], false);
    const double rounding_psnr = -10.0 * std::log10(rounding_mse);
    const double psnr = CombinedPsnr(kernel_psnr, rounding_psnr);
    constexpr char kRecursion[] =
        "a recursive damped cosine (one complex pole, the Gaussian's truncation kept)";
    std::string method;
    if (!any_boxes) {
      method = kRecursion;
    } else if (!any_recursive) {
      method = absl::StrCat(stack.coeffs.size(), " boxes");
    } else {
      method = absl::StrCat(methods[0].recursive ? "rows" : "columns", " by ", kRecursion, ", ",
                            methods[0].recursive ? "columns" : "rows", " by ",
                            stack.coeffs.size(),
                            " boxes (their lines do not fit shared memory for the recursion),");
    }
    prepared.accuracy = {
        false,
        absl::StrFormat("approximate: %s instead of %d taps; expected PSNR %.1f dB against exact "
                        "on uniform noise (kernel %.1f dB, fp32 %s rounding %.1f dB)",
                        method, 2 * config.radius + 1, psnr, kernel_psnr,
                        !any_boxes       ? "recursion"
                        : !any_recursive ? "prefix"
                                         : "recursion and prefix",
                        rounding_psnr),
        psnr};
    return absl::OkStatus();
  }

  absl::Status Record(graph::RecordContext& ctx, int step,
                      const BlurPrepared& prepared) const override {
    const StepKernel& k = prepared.steps.at(step);
    const LineLayout& l = k.layout;
    if (k.shader == kShaderRecursive || k.shader == kShaderRecursivePairs) {
      const RecursivePush push = RecursivePushFor(prepared, k);
      const gpu::ShaderCode recursive =
          k.shader == kShaderRecursivePairs
              ? WorkingShader(ctx.working_format(), "gaussian_blur_recursive_pairs",
                              kGaussianBlurRecursivePairsF16, kGaussianBlurRecursivePairsF32, 3,
                              sizeof(RecursivePush))
              : WorkingShader(ctx.working_format(), "gaussian_blur_recursive",
                              kGaussianBlurRecursiveF16, kGaussianBlurRecursiveF32, 3,
                              sizeof(RecursivePush));
      const gpu::BufferSlice buffers[] = {ctx.read(0), ctx.write(0), ctx.constants(k.constants)};
      return ctx.Dispatch(recursive, k.spec, buffers, push, k.groups_x, k.groups_y, 1);
    }
    PrefixPush push{l.n, l.lines, l.in_line_stride, l.in_pixel_stride, k.groups_y,
                    prepared.config.border, static_cast<uint32_t>(prepared.half_taps)};
    const graph::PixelFormat working = ctx.working_format();
    if (k.shader == kShaderFused) {
      const gpu::ShaderCode fused =
          WorkingShader(working, "gaussian_blur_boxes_fused", kGaussianBlurBoxesFusedF16,
                        kGaussianBlurBoxesFusedF32, 3, sizeof(PrefixPush));
      const gpu::BufferSlice buffers[] = {ctx.read(0), ctx.write(0), ctx.constants(k.constants)};
      return ctx.Dispatch(fused, k.spec, buffers, push, k.groups_x, 1, 1);
    }
    const gpu::BufferSlice& sums = ctx.write(1);
    const gpu::ShaderCode prefix =
        WorkingShader(working, "gaussian_blur_prefix", kGaussianBlurPrefixF16,
                      kGaussianBlurPrefixF32, 2, sizeof(PrefixPush));
    const gpu::BufferSlice prefix_buffers[] = {ctx.read(0), sums};
    if (absl::Status s =
            ctx.Dispatch(prefix, k.spec, prefix_buffers, push, k.groups_x, 1, 1);
        !s.ok()) {
      return s;
    }
    ctx.ComputeBarrier();
    const gpu::ShaderCode boxes =
        WorkingShader(working, "gaussian_blur_boxes", kGaussianBlurBoxesF16,
                      kGaussianBlurBoxesF32, 4, sizeof(PrefixPush));
    const gpu::BufferSlice box_buffers[] = {ctx.read(0), ctx.write(0), sums,
                                            ctx.constants(k.constants)};
    // Invocations: along rows x walks the line; along columns x walks the
    // lines (adjacent columns are adjacent in memory): both coalesce. Column
    // workgroups are numbered along the column first (the shader says why).
    const bool rows = l.in_pixel_stride == 1;
    const uint32_t groups_x = rows ? DivideRoundingUp(l.n, kBoxGroupX)
                                   : DivideRoundingUp(l.n, kBoxGroupY);
    const uint32_t groups_y = rows ? DivideRoundingUp(l.lines, kBoxGroupY)
                                   : DivideRoundingUp(l.lines, kBoxGroupX);
    return ctx.Dispatch(boxes, {}, box_buffers, push, groups_x, groups_y, 1);
  }
};

}  // namespace

std::unique_ptr<BlurVariant> MakeLargeRadiusBlur() {
  return std::make_unique<LargeRadiusBlur>();
}

RecursivePush RecursivePushFor(const BlurPrepared& prepared, const StepKernel& k) {
  const LineLayout& l = k.layout;
  return {l.n,
          l.lines,
          l.in_line_stride,
          l.in_pixel_stride,
          prepared.config.border,
          static_cast<uint32_t>(prepared.config.radius),
          k.segment};
}

}  // namespace rgfx::passes
