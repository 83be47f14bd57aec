#include "passes/gaussian_blur.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include <cctype>
#include <cmath>
#include <limits>

#include "passes/blur_variants/auto_table.h"
#include "passes/blur_variants/fast.h"
#include "passes/blur_variants/line_variant.h"
#include "passes/blur_variants/tiled_halo.h"
#include "passes/blur_variants/tuned.h"
#include "passes/pass_util.h"

namespace rgfx::passes {
namespace {

std::vector<std::string> VariantNames() {
  std::vector<std::string> names = {"auto"};
  for (const auto& v : BlurVariants()) names.emplace_back(v->name());
  return names;
}

constexpr char kAutoRule[] =
    "auto: on a device the server has measured (its own measurements at start-up where "
    "--auto_calibration made them, else its built-in table from rgfx-gpu-bench --sweep: "
    "vendor and device id, working format, the nearest measured image size and radius), the "
    "fastest variant measured there that can plan the request and is exact, or, when "
    "min_psnr_db > 0, states a PSNR >= min_psnr_db for it (a variant measured both ways, as "
    "fast in RGBA32F, by the time of the plan it gets: exact or approximate). Elsewhere the "
    "fallback rule, from what the measured GPUs agree on: on GPUs, with min_psnr_db > 0, "
    "large_radius from radius 64 when its stated PSNR is enough and fast would not stream on "
    "the matrix units there (RGBA16F, or RGBA32F on fast's approximate path, up to radius "
    "112; RGBA16F streams further but no longer beats large_radius); otherwise fast where its "
    "plan for the request is exact or, allowed, states enough; on CPUs, with min_psnr_db > 0, large_radius from radius 32 when its stated PSNR is "
    "enough; else tiled_halo when its tile and halo fit the shared memory, else tuned when "
    "lines fit or chunk, else exact. Never an approximate variant when min_psnr_db is 0; "
    "radius 0 is exact (a copy)";

graph::PassSchema BlurSchema() {
  graph::PassSchema schema;
  schema.doc =
      "Separable Gaussian blur in linear, premultiplied light: a horizontal step then a "
      "vertical one (or a single axis). Every variant reproduces the exact blur within float "
      "rounding except decimated, which states its error.";
  schema.input_names = {"source"};
  schema.output_names = {"result"};
  graph::ParamSpec radius{"radius", graph::ParamType::kInt,
                          "kernel radius in pixels; 2·radius+1 taps; 0 is the identity",
                          int64_t{8}, 0, kMaxBlurRadius};
  graph::ParamSpec sigma{"sigma", graph::ParamType::kFloat,
                         "standard deviation in pixels; default radius / 2", std::nullopt,
                         1e-3, 1e6};
  graph::ParamSpec axes{"axes", graph::ParamType::kEnum,
                        "both (horizontal then vertical, default), horizontal or vertical",
                        std::string("both")};
  axes.enum_values = {"both", "horizontal", "vertical"};
  graph::ParamSpec variant{"variant", graph::ParamType::kEnum,
                           "kernel variant; auto picks the fastest exact one",
                           std::string("auto")};
  variant.enum_values = VariantNames();
  graph::ParamSpec max_taps{"max_taps", graph::ParamType::kInt,
                            "decimated only: most taps per axis (default 64); more radius "
                            "steps over pixels",
                            int64_t{64}, 3, 2 * kMaxBlurRadius + 1};
  graph::ParamSpec min_psnr{"min_psnr_db", graph::ParamType::kFloat,
                            "what the request allows: 0 (default) float rounding only; > 0 "
                            "also an approximation whose plan states at least this PSNR (dB, "
                            "against exact on uniform noise): auto may then pick an "
                            "approximate variant, and fast in RGBA32F may run through fp16 on "
                            "matrix units",
                            0.0, 0.0, 1000.0};
  schema.params = {radius, sigma, BorderParamSpec(), axes, variant, max_taps, min_psnr};
  schema.variant_param = "variant";
  for (const auto& v : BlurVariants()) schema.notes.push_back(v->Note());
  schema.notes.push_back(kAutoRule);
  schema.notes.push_back(
      "with both axes the line variants write the horizontal result transposed (an h×w "
      "temporary) and run the same row kernel again, as published");
  return schema;
}

class GaussianBlurPass final : public graph::PassType {
 public:
  GaussianBlurPass() : schema_(BlurSchema()) {}
  std::string_view name() const override { return "gaussian_blur"; }
  const graph::PassSchema& schema() const override { return schema_; }

  absl::StatusOr<graph::PassPlan> Plan(const graph::PlanContext& ctx) const override {
    BlurConfig config;
    config.pass_name = ctx.pass_name;
    config.radius = static_cast<int>(ctx.params.Int("radius"));
    config.sigma = ctx.params.OptionalFloat("sigma").value_or(config.radius / 2.0);
    if (config.radius > 0 && !(config.sigma > 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("pass '", ctx.pass_name, "': sigma must be > 0"));
    }
    config.border = EnumIndex(ctx.params, "border", BorderModes());
    config.axes = ctx.params.Enum("axes");
    config.max_taps = static_cast<int>(ctx.params.Int("max_taps"));
    config.extent = ctx.input_extents[0];
    config.working = ctx.working_format;
    config.caps = ctx.caps;
    config.min_psnr_db = ctx.params.Float("min_psnr_db");
    std::string name = ctx.params.Enum("variant");
    if (name == "auto") name = AutoBlurVariant(config);
    const BlurVariant* variant = FindBlurVariant(name);
    if (variant == nullptr) {  // the schema lists every variant: our invariant
      return absl::InternalError(absl::StrCat("gaussian_blur: no variant '", name, "'"));
    }
    graph::PassPlan plan;
    plan.variant = name;
    plan.output_extents = {config.extent};
    BlurPrepared prepared;
    prepared.variant = variant;
    prepared.config = config;
    if (absl::Status s = variant->Plan(config, plan, prepared); !s.ok()) return s;
    plan.prepared = std::move(prepared);
    return plan;
  }

  absl::Status Record(graph::RecordContext& ctx, int step) const override {
    const auto* prepared = std::any_cast<BlurPrepared>(&ctx.plan().prepared);
    if (prepared == nullptr) return absl::InternalError("gaussian_blur: plan was not prepared");
    return prepared->variant->Record(ctx, step, *prepared);
  }

 private:
  const graph::PassSchema schema_;
};

// What planning `variant` for `config` states: nullopt when it refuses,
// +infinity when exact, else its stated PSNR.
std::optional<double> StatedPsnr(std::string_view variant, const BlurConfig& config) {
  const BlurVariant* v = FindBlurVariant(variant);
  if (v == nullptr) return std::nullopt;
  graph::PassPlan plan;
  BlurPrepared prepared;
  if (!v->Plan(config, plan, prepared).ok()) return std::nullopt;
  if (prepared.accuracy.exact) return std::numeric_limits<double>::infinity();
  return prepared.accuracy.noise_psnr_db.value_or(0.0);
}

bool CanPlan(std::string_view variant, const BlurConfig& config) {
  return StatedPsnr(variant, config).has_value();
}

}  // namespace

std::string AutoBlurVariant(const BlurConfig& config) {
  if (config.radius == 0) return "exact";
  // Candidates are planned with the request's config, allowance included
  // (fast's RGBA32F path depends on it).
  const double min_psnr_db = config.min_psnr_db;
  const gpu::DeviceCaps& caps = config.caps;
  AutoQuery query;
  query.vendor_id = caps.vendor_id;
  query.device_id = caps.device_id;
  query.working = std::string(graph::PixelFormatName(config.working));
  for (char& c : query.working) c = static_cast<char>(std::tolower(c));
  query.pixels = uint64_t{config.extent.width} * config.extent.height;
  query.radius = config.radius;
  query.min_psnr_db = min_psnr_db;
  const StatedPsnrFn stated = [&](std::string_view v) { return StatedPsnr(v, config); };
  // This process's own measurements of the device where it made them
  // (--auto_calibration), else the built-in table's.
  const std::shared_ptr<const std::vector<AutoTableRow>> measured = MeasuredAutoRows();
  const bool calibrated = CountDeviceRows(*measured, caps.vendor_id, caps.device_id) > 0;
  const std::span<const AutoTableRow> table =
      calibrated ? std::span<const AutoTableRow>(*measured) : BuiltinAutoTable();
  if (auto chosen = ChooseFromTable(table, query, stated)) return *chosen;
  return FallbackBlurVariant(config);
}

std::string FallbackBlurVariant(const BlurConfig& config) {
  if (config.radius == 0) return "exact";
  const double min_psnr_db = config.min_psnr_db;
  const auto admitted = [&](const char* variant) {
    const std::optional<double> p = StatedPsnr(variant, config);
    return p && AdmitsStatedPsnr(*p, min_psnr_db);
  };
  // What both measured GPUs' tables agree on (the H100 and the H200,
  // docs/PERFORMANCE.md; auto_table_test holds this rule within 25% of
  // their fastest at every point they measured). On GPUs `fast` at every
  // radius where its plan is admitted: at r <= 8 its one-dispatch tile
  // runs 1.5-2.6x faster than exact (the rule gave exact up to r = 6
  // before that path existed). Where approximation is allowed,
  // large_radius (flat in the radius) from r = 64 unless fast streams on
  // the matrix units there (RGBA16F, or RGBA32F where fast's plan is its
  // approximate fp16 path, up to kFastStreamMaxRadius = 112, on images
  // larger than 1080p): 1080p r = 64 streamed 37-38 µs against
  // large_radius's 71-75 (RGBA16F); RGBA32F 4096² r = 64 streamed 604
  // against 1,000 or more, but at 1080p the H100's sweep of 2026-12-07
  // took 125.4 µs streamed against large_radius's 99.8 (the H200's 82.4
  // against 94.5: large_radius is within 25% of both); fp32 line paths 142
  // against 94-106. RGBA16F streams further (to 448) but no longer wins
  // there: r = 128 73 µs against 71 on an H200, r = 256 154 against 71.
  if (config.caps.type != "cpu") {
    const std::optional<double> fast = StatedPsnr("fast", config);
    const bool fast_streams =
        config.caps.f16_matrix_product_16 && config.radius <= kFastStreamMaxRadius &&
        (config.working == graph::PixelFormat::kRgba16F ||
         (fast && !std::isinf(*fast) && config.extent.pixels() > uint64_t{1920} * 1080));
    if (min_psnr_db > 0 && config.radius >= 64 && !fast_streams && admitted("large_radius")) {
      return "large_radius";
    }
    if (fast && AdmitsStatedPsnr(*fast, min_psnr_db)) return "fast";
  } else if (min_psnr_db > 0 && config.radius >= 32 && admitted("large_radius")) {
    // On CPUs large_radius's cost does not grow with the radius either.
    return "large_radius";
  }
  // On lavapipe tiled_halo was the fastest at every radius measured (4-64).
  for (const char* candidate : {"tiled_halo", "tuned"}) {
    if (CanPlan(candidate, config)) return candidate;
  }
  return "exact";
}

std::string AutoBlurVariant(const gpu::DeviceCaps& caps, graph::PixelFormat working, int radius,
                            graph::Extent extent) {
  BlurConfig config;
  config.radius = radius;
  config.sigma = radius > 0 ? radius / 2.0 : 1.0;
  config.axes = "both";
  config.extent = extent;
  config.working = working;
  config.caps = caps;
  return AutoBlurVariant(config);
}

const BlurAccuracy* FindBlurAccuracy(const graph::PassPlan& plan) {
  const auto* prepared = std::any_cast<BlurPrepared>(&plan.prepared);
  return prepared ? &prepared->accuracy : nullptr;
}

std::vector<std::string> BlurStepDetails(const graph::PassPlan& plan) {
  std::vector<std::string> details;
  const auto* prepared = std::any_cast<BlurPrepared>(&plan.prepared);
  if (prepared == nullptr) return details;
  for (size_t i = 0; i < prepared->steps.size() && i < plan.steps.size(); ++i) {
    if (prepared->steps[i].details.empty()) continue;
    details.push_back(absl::StrCat(plan.steps[i].label, ": ", prepared->steps[i].details));
  }
  return details;
}

std::vector<std::string> BlurDeviceNotes(const gpu::DeviceCaps& caps) {
  std::vector<std::string> notes;
  for (auto working : {graph::PixelFormat::kRgba16F, graph::PixelFormat::kRgba32F}) {
    const std::string format(graph::PixelFormatName(working));
    std::vector<std::string> lines;
    for (uint32_t n : {1080u, 1920u, 4096u}) {
      lines.push_back(absl::StrCat(n, " px: ", ChooseTuned(caps, working, n).Describe()));
    }
    notes.push_back(absl::StrCat("on ", caps.name, ", ", format, ": tuned chooses ",
                                 absl::StrJoin(lines, "; "), "; tiled_halo takes radius <= ",
                                 TiledHaloMaxRadius(caps, working)));
    // line_cache, symmetric and decimated share one cache (CachedLineKernel).
    BlurConfig config;
    config.working = working;
    config.caps = caps;
    const uint32_t cache = CachePixels(config);
    const uint32_t tuned_cache = [&] {
      const TunedChoice c = ChooseTuned(caps, working, 1u << 30);
      return c.wide + c.packed - 1;
    }();
    notes.push_back(absl::StrCat(
        "on ", caps.name, ", ", format, ": line_cache/symmetric/decimated cache ", cache,
        " px (", caps.max_compute_shared_memory_bytes,
        " bytes of shared memory): lines up to ", cache, " px take any radius, longer lines "
        "radius <= ", (cache - 1) / 2, "; tuned's largest cache ", tuned_cache,
        " px: longer lines radius <= ", (tuned_cache - 1) / 2));
  }
  const int matrix_radius = FastMatrixMaxRadius(caps);
  notes.push_back(
      matrix_radius < 0
          ? absl::StrCat("on ", caps.name, ": fast runs on the line paths (no matrix units)")
          : absl::StrCat("on ", caps.name, ": fast runs on the matrix units (fp16 16x16x16, "
                         "fp32 accumulation) in RGBA16F at any radius: streamed in one pass "
                         "an axis below radius ", kFastSplitPolicy.from_radius,
                         ", from it with the taps in parts of at most ",
                         2 * kFastSplitPolicy.part_max_radius + 1,
                         " (one dispatch each, their sums in fp32), where the image gives "
                         "enough subgroups (else a panel in shared memory up to radius ",
                         matrix_radius, ", then the line paths); in RGBA32F on the line "
                         "paths"));
  // Whether "auto" chooses from measurements of this device or by rule:
  // an operator's first question when AUTO's choices surprise.
  const size_t calibrated =
      CountDeviceRows(*MeasuredAutoRows(), caps.vendor_id, caps.device_id);
  const size_t measured = CountDeviceRows(BuiltinAutoTable(), caps.vendor_id, caps.device_id);
  notes.push_back(
      calibrated > 0
          ? absl::StrCat("on ", caps.name, ": auto chooses from ", calibrated,
                         " times this server measured on this device at start-up "
                         "(--auto_calibration)")
      : measured > 0
          ? absl::StrCat("on ", caps.name, ": auto chooses from ", measured,
                         " times measured on this device (rgfx-gpu-bench --sweep)")
          : absl::StrCat("on ", caps.name, ": auto follows the fallback rule (this device ",
                         "was not measured; --auto_calibration=always measures it at "
                         "start-up, rgfx-gpu-bench --sweep and bench/make_auto_table.py "
                         "add it to the built-in table)"));
  return notes;
}

std::unique_ptr<graph::PassType> MakeGaussianBlurPass() {
  return std::make_unique<GaussianBlurPass>();
}

}  // namespace rgfx::passes
