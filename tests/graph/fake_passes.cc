#include "tests/graph/fake_passes.h"

#include "absl/strings/str_cat.h"

namespace rgfx::graph::testing {
namespace {

class FakePass : public PassType {
 public:
  FakePass(std::string name, PassSchema schema)
      : name_(std::move(name)), schema_(std::move(schema)) {}
  std::string_view name() const override { return name_; }
  const PassSchema& schema() const override { return schema_; }
  absl::Status Record(RecordContext&, int) const override { return absl::OkStatus(); }

 private:
  std::string name_;
  PassSchema schema_;
};

ParamSpec EnumSpec(std::string name, std::string def, std::vector<std::string> values) {
  ParamSpec spec{std::move(name), ParamType::kEnum, "", ParamValue(std::move(def))};
  spec.enum_values = std::move(values);
  return spec;
}

class FakeConvert final : public FakePass {
 public:
  explicit FakeConvert(bool import)
      : FakePass(std::string(import ? kImportPassType : kExportPassType), Schema()) {}
  static PassSchema Schema() {
    PassSchema schema;
    schema.input_names = {"source"};
    schema.output_names = {"result"};
    schema.params = {EnumSpec("format", "rgba8", {"rgba8", "rgba16", "rgba16f", "rgba32f"}),
                     EnumSpec("color_space", "srgb", {"srgb", "linear"}),
                     EnumSpec("alpha", "straight", {"straight", "premultiplied"}),
                     ParamSpec{"png_rows", ParamType::kBool, "", ParamValue(false)}};
    return schema;
  }
  absl::StatusOr<PassPlan> Plan(const PlanContext& ctx) const override {
    PassPlan plan;
    plan.output_extents = {ctx.input_extents[0]};
    plan.steps.push_back(
        {std::string(name()), {StepResource::Input(0)}, {StepResource::Output(0)}});
    return plan;
  }
};

class FakeBlur final : public FakePass {
 public:
  FakeBlur() : FakePass("blur", Schema()) {}
  static PassSchema Schema() {
    PassSchema schema;
    schema.input_names = {"source"};
    schema.output_names = {"result"};
    schema.params = {
        {"radius", ParamType::kInt, "pixels", ParamValue(int64_t{4}), 0, 100},
        {"sigma", ParamType::kFloat, "pixels; default radius/2", std::nullopt, 1e-3, 1e3},
        EnumSpec("border", "clamp", {"clamp", "mirror", "wrap", "zero"}),
        {"normalize", ParamType::kBool, "", ParamValue(true), 0, 0}};
    schema.variant_param = "";
    return schema;
  }
  absl::StatusOr<PassPlan> Plan(const PlanContext& ctx) const override {
    PassPlan plan;
    plan.output_extents = {ctx.input_extents[0]};
    plan.temp_extents = {ctx.input_extents[0]};
    plan.steps.push_back({"horizontal", {StepResource::Input(0)}, {StepResource::Temp(0)}});
    plan.steps.push_back({"vertical", {StepResource::Temp(0)}, {StepResource::Output(0)}});
    plan.variant = "fake";
    return plan;
  }
};

class FakeComposite final : public FakePass {
 public:
  FakeComposite() : FakePass("composite", Schema()) {}
  static PassSchema Schema() {
    PassSchema schema;
    schema.input_names = {"base", "overlay", "mask"};
    schema.min_inputs = 2;
    schema.output_names = {"result"};
    schema.params = {EnumSpec("mode", "add", {"add", "mix"}),
                     {"amount", ParamType::kFloat, "", ParamValue(1.0), 0, 1}};
    return schema;
  }
  absl::StatusOr<PassPlan> Plan(const PlanContext& ctx) const override {
    for (const Extent& e : ctx.input_extents) {
      if (!(e == ctx.input_extents[0])) {
        return absl::InvalidArgumentError(absl::StrCat(
            "pass '", ctx.pass_name, "': inputs differ in size (", ctx.input_extents[0].width, "x",
            ctx.input_extents[0].height, " and ", e.width, "x", e.height, ")"));
      }
    }
    PassPlan plan;
    plan.output_extents = {ctx.input_extents[0]};
    StepPlan step{"blend", {}, {StepResource::Output(0)}};
    for (size_t i = 0; i < ctx.input_extents.size(); ++i) {
      step.reads.push_back(StepResource::Input(static_cast<int>(i)));
    }
    plan.steps.push_back(std::move(step));
    return plan;
  }
};

class FakeScale final : public FakePass {
 public:
  explicit FakeScale(bool down)
      : FakePass(down ? "downsample" : "upsample", Schema()), down_(down) {}
  static PassSchema Schema() {
    PassSchema schema;
    schema.input_names = {"source"};
    schema.output_names = {"result"};
    schema.params = {{"factor", ParamType::kInt, "", ParamValue(int64_t{2}), 1, 1024}};
    return schema;
  }
  absl::StatusOr<PassPlan> Plan(const PlanContext& ctx) const override {
    const uint32_t f = static_cast<uint32_t>(ctx.params.Int("factor"));
    const Extent in = ctx.input_extents[0];
    PassPlan plan;
    plan.output_extents = {down_ ? Extent{in.width / f, in.height / f}
                                 : Extent{in.width * f, in.height * f}};
    plan.steps.push_back({"scale", {StepResource::Input(0)}, {StepResource::Output(0)}});
    return plan;
  }

 private:
  bool down_;
};

class FakeSplit final : public FakePass {
 public:
  FakeSplit() : FakePass("split", Schema()) {}
  static PassSchema Schema() {
    PassSchema schema;
    schema.input_names = {"source"};
    schema.output_names = {"low", "high"};
    return schema;
  }
  absl::StatusOr<PassPlan> Plan(const PlanContext& ctx) const override {
    PassPlan plan;
    plan.output_extents = {ctx.input_extents[0], ctx.input_extents[0]};
    plan.steps.push_back(
        {"split", {StepResource::Input(0)}, {StepResource::Output(0), StepResource::Output(1)}});
    return plan;
  }
};

}  // namespace

std::unique_ptr<PassRegistry> MakeFakeRegistry() {
  auto registry = std::make_unique<PassRegistry>();
  registry->Register(std::make_unique<FakeConvert>(true));
  registry->Register(std::make_unique<FakeConvert>(false));
  registry->Register(std::make_unique<FakeBlur>());
  registry->Register(std::make_unique<FakeComposite>());
  registry->Register(std::make_unique<FakeScale>(true));
  registry->Register(std::make_unique<FakeScale>(false));
  registry->Register(std::make_unique<FakeSplit>());
  return registry;
}

InputDesc In(const std::string& name, uint32_t width, uint32_t height) {
  InputDesc input;
  input.name = name;
  input.extent = {width, height};
  return input;
}

PassDesc P(const std::string& name, const std::string& type,
           std::initializer_list<std::string> inputs, std::initializer_list<std::string> outputs,
           Params params) {
  return PassDesc{name, type, inputs, outputs, std::move(params)};
}

OutputDesc Out(const std::string& name) {
  OutputDesc output;
  output.name = name;
  return output;
}

GraphDesc BlurChain(int n, uint32_t width, uint32_t height) {
  GraphDesc desc;
  desc.inputs = {In("photo", width, height)};
  std::string previous = "photo";
  for (int i = 1; i <= n; ++i) {
    const std::string out = absl::StrCat("b", i);
    desc.passes.push_back(P(absl::StrCat("blur", i), "blur", {previous}, {out}));
    previous = out;
  }
  desc.outputs = {Out(previous)};
  return desc;
}

std::vector<std::string> PassNames(const CompiledGraph& graph) {
  std::vector<std::string> names;
  for (const CompiledPass& pass : graph.passes) names.push_back(pass.name);
  return names;
}

std::vector<int> BarrierSteps(const CompiledGraph& graph) {
  std::vector<int> steps;
  for (size_t i = 0; i < graph.steps.size(); ++i) {
    if (graph.steps[i].barrier_before) steps.push_back(static_cast<int>(i));
  }
  return steps;
}

int FindResource(const CompiledGraph& graph, const std::string& name) {
  for (size_t i = 0; i < graph.resources.size(); ++i) {
    if (graph.resources[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace rgfx::graph::testing
