#include "passes/import_export.h"

#include "graph/registry.h"
#include "passes/pass_util.h"
#include "passes/shader_interface.h"
#include "kExportF16.h"
#include "kExportF32.h"
#include "kImportF16.h"
#include "kImportF32.h"
#include "kPngRows.h"

namespace rgfx::passes {
namespace {

// Must match the push_constant blocks of import.comp and export.comp.
struct ConvertPush {
  uint32_t width;
  uint32_t height;
  uint32_t format;
  uint32_t srgb;
  uint32_t alpha;  // import: premultiply; export: unpremultiply
};

// Must match the push_constant block of png_rows.comp.
struct PngRowsPush {
  uint32_t width;
  uint32_t height;
};

// png_rows.comp works a row per workgroup; a grid of at most this many
// workgroups strides over taller images.
constexpr uint32_t kMaxRowGroups = 65535;

const std::vector<std::string>& FormatNames() {
  static const auto* names = new std::vector<std::string>{"rgba8", "rgba16", "rgba16f", "rgba32f"};
  static_assert(RGFX_FORMAT_RGBA8 == 0 && RGFX_FORMAT_RGBA16 == 1 && RGFX_FORMAT_RGBA16F == 2 &&
                RGFX_FORMAT_RGBA32F == 3);
  return *names;
}

graph::PassSchema ConvertSchema(bool import) {
  graph::PassSchema schema;
  schema.doc = import ? "internal: client pixels to the working format (linear, premultiplied)"
                      : "internal: the working format to the client's pixels";
  schema.input_names = {"source"};
  schema.output_names = {"result"};
  graph::ParamSpec format{"format", graph::ParamType::kEnum, "client pixel format",
                          std::string("rgba8")};
  format.enum_values = FormatNames();
  graph::ParamSpec color{"color_space", graph::ParamType::kEnum, "client colour space",
                         std::string("srgb")};
  color.enum_values = {"srgb", "linear"};
  graph::ParamSpec alpha{"alpha", graph::ParamType::kEnum, "client alpha mode",
                         std::string("straight")};
  alpha.enum_values = {"straight", "premultiplied"};
  schema.params = {format, color, alpha};
  if (!import) {
    schema.params.push_back({"png_rows", graph::ParamType::kBool,
                             "RGBA8 only: also write the PNG scanlines, filtered (graph::PngRowsLayout)",
                             false});
  }
  return schema;
}

class ConvertPass final : public graph::PassType {
 public:
  explicit ConvertPass(bool import) : import_(import), schema_(ConvertSchema(import)) {}
  std::string_view name() const override {
    return import_ ? graph::kImportPassType : graph::kExportPassType;
  }
  const graph::PassSchema& schema() const override { return schema_; }

  absl::StatusOr<graph::PassPlan> Plan(const graph::PlanContext& ctx) const override {
    graph::PassPlan plan;
    plan.output_extents = {ctx.input_extents[0]};
    plan.steps.push_back({import_ ? "import" : "export", {graph::StepResource::Input(0)},
                          {graph::StepResource::Output(0)}});
    return plan;
  }

  absl::Status Record(graph::RecordContext& ctx, int) const override {
    const graph::Extent extent = ctx.input_extents()[0];
    const graph::Params& params = ctx.params();
    const ConvertPush push{extent.width, extent.height,
                           EnumIndex(params, "format", FormatNames()),
                           params.Enum("color_space") == "srgb" ? 1u : 0u,
                           params.Enum("alpha") == "straight" ? 1u : 0u};
    const gpu::ShaderCode shader =
        import_ ? WorkingShader(ctx.working_format(), "import", kImportF16, kImportF32, 2,
                                sizeof(ConvertPush))
                : WorkingShader(ctx.working_format(), "export", kExportF16, kExportF32, 2,
                                sizeof(ConvertPush));
    const gpu::BufferSlice buffers[] = {ctx.read(0), ctx.write(0)};
    if (absl::Status s =
            ctx.Dispatch(shader, {}, buffers, push, DivideRoundingUp(extent.width, RGFX_TILE_X),
                         DivideRoundingUp(extent.height, RGFX_TILE_Y), 1);
        !s.ok() || import_ || !params.Bool("png_rows")) {
      return s;
    }
    return RecordPngRows(ctx, extent);
  }

 private:
  // The filtered scanlines, from the pixels the first dispatch wrote.
  static absl::Status RecordPngRows(graph::RecordContext& ctx, graph::Extent extent) {
    if (!ctx.caps().storage_int8) {
      return absl::FailedPreconditionError(
          "png_rows needs 8-bit storage buffers, which this device lacks");
    }
    const graph::PngRowsLayout layout = graph::PngRowsLayoutOf(extent);
    const gpu::BufferSlice& out = ctx.write(0);
    auto part = [&out](uint64_t offset, uint64_t size) {
      return gpu::BufferSlice{out.buffer, out.offset + offset, size,
                              out.mapped == nullptr ? nullptr : out.mapped + offset};
    };
    const gpu::BufferSlice buffers[] = {
        part(0, layout.pixel_bytes),
        part(layout.rows_offset, layout.row_stride * extent.height),
        part(layout.flags_offset, 4 * uint64_t{extent.height})};
    ctx.ComputeBarrier();
    const gpu::ShaderCode shader{"png_rows", kPngRows, 3, sizeof(PngRowsPush)};
    return ctx.Dispatch(shader, {}, buffers, PngRowsPush{extent.width, extent.height},
                        std::min(extent.height, kMaxRowGroups), 1, 1);
  }

  const bool import_;
  const graph::PassSchema schema_;
};

}  // namespace

std::unique_ptr<graph::PassType> MakeImportPass() { return std::make_unique<ConvertPass>(true); }
std::unique_ptr<graph::PassType> MakeExportPass() { return std::make_unique<ConvertPass>(false); }

}  // namespace rgfx::passes
