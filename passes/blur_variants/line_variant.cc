#include "passes/blur_variants/line_variant.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "graph/image_format.h"
#include "passes/shader_interface.h"

namespace rgfx::passes {
namespace {

using graph::StepResource;

// Layouts of the steps (see the header): transposed through the temporary
// when both axes run.
std::vector<std::pair<std::string, LineLayout>> Layouts(const BlurConfig& c) {
  const uint32_t w = c.extent.width, h = c.extent.height;
  if (c.axes == "horizontal") return {{"horizontal", {w, h, w, 1, w, 1}}};
  if (c.axes == "vertical") return {{"vertical", {h, w, 1, w, 1, w}}};
  return {{"horizontal", {w, h, w, 1, 1, h}}, {"vertical", {h, w, h, 1, 1, w}}};
}

}  // namespace

uint32_t PublishedGroupSize(const gpu::DeviceCaps& caps, uint32_t n) {
  // Never more invocations than pixels (rounded to whole subgroups): the
  // published size assumed lines of 1024+ pixels, and idle invocations in
  // every workgroup of a 3-pixel line only add cost.
  const uint32_t sub = std::max<uint32_t>(1, caps.subgroup_size);
  const uint32_t line = (std::max<uint32_t>(n, 1) + sub - 1) / sub * sub;
  return std::min<uint32_t>({RGFX_LINE_GROUP_PUBLISHED, line, caps.max_workgroup_invocations,
                             caps.max_workgroup_size[0]});
}

uint32_t CachePixels(const BlurConfig& config) {
  const uint32_t bytes = config.working == graph::PixelFormat::kRgba32F ? 16 : 8;
  return config.caps.max_compute_shared_memory_bytes / bytes;
}

absl::Status CheckChunks(const BlurConfig& config, std::string_view variant, uint32_t n,
                         uint32_t capacity, uint32_t capacity_bytes, int halo) {
  if (n <= capacity || 2 * static_cast<int64_t>(halo) < capacity) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "pass '", config.pass_name, "': variant ", std::string(variant), ": a line of ", n,
      " pixels does not fit the workgroup cache (", capacity, " ",
      std::string(graph::PixelFormatName(config.working)), " pixels in ", capacity_bytes,
      " bytes of shared memory on ", config.caps.name, ") and radius ", halo,
      " leaves no room for chunks, which need 2·radius < ", capacity, "; use radius <= ",
      (capacity - 1) / 2, ", or variant exact or naive"));
}

double InverseWeightTotal(const BlurConfig& config, int step, int half_taps) {
  if (config.radius == 0) return 1.0;
  double total = 0;
  for (int j = -half_taps; j <= half_taps; ++j) {
    const double k = static_cast<double>(j) * step;
    total += std::exp(-k * k / (2 * config.sigma * config.sigma));
  }
  return 1.0 / total;
}

absl::Status LineBlurVariant::PlanTaps(const BlurConfig& config, graph::PassPlan&,
                                       BlurPrepared& prepared) const {
  prepared.inv_two_sigma2 =
      config.radius == 0 ? 0.0f : static_cast<float>(1.0 / (2 * config.sigma * config.sigma));
  prepared.inv_total = static_cast<float>(InverseWeightTotal(config, 1, config.radius));
  prepared.tap_step = 1;
  prepared.half_taps = config.radius;
  prepared.accuracy = {true, "exact (float rounding; exp() per tap within a few ulp)", {}};
  return absl::OkStatus();
}

absl::Status LineBlurVariant::Plan(const BlurConfig& config, graph::PassPlan& plan,
                                   BlurPrepared& prepared) const {
  if (absl::Status s = PlanTaps(config, plan, prepared); !s.ok()) return s;
  const auto layouts = Layouts(config);
  if (layouts.size() == 2) {
    plan.temp_extents = {{config.extent.height, config.extent.width}};
    plan.steps.push_back({"horizontal", {StepResource::Input(0)}, {StepResource::Temp(0)}});
    plan.steps.push_back({"vertical", {StepResource::Temp(0)}, {StepResource::Output(0)}});
  } else {
    plan.steps.push_back({layouts[0].first, {StepResource::Input(0)}, {StepResource::Output(0)}});
  }
  for (const auto& [label, layout] : layouts) {
    absl::StatusOr<StepKernel> kernel = Kernel(config, layout);
    if (!kernel.ok()) return kernel.status();
    kernel->layout = layout;
    prepared.steps.push_back(*std::move(kernel));
  }
  return absl::OkStatus();
}

absl::Status LineBlurVariant::Record(graph::RecordContext& ctx, int step,
                                     const BlurPrepared& prepared) const {
  const StepKernel& kernel = prepared.steps.at(step);
  const LineLayout& l = kernel.layout;
  const LinePush push{l.n,
                      l.in_line_stride,
                      l.in_pixel_stride,
                      l.out_line_stride,
                      l.out_pixel_stride,
                      prepared.config.radius,
                      prepared.config.border,
                      prepared.inv_two_sigma2,
                      prepared.inv_total,
                      prepared.tap_step,
                      prepared.half_taps};
  const gpu::ShaderCode shader = Shader(ctx.working_format());
  std::vector<gpu::BufferSlice> buffers = {ctx.read(0), ctx.write(0)};
  if (num_buffers() == 3) buffers.push_back(ctx.constants(0));
  return ctx.Dispatch(shader, kernel.spec, buffers, push, kernel.groups_x, kernel.groups_y, 1);
}

}  // namespace rgfx::passes
