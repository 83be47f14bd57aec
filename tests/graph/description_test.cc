#include "graph/description.h"

#include "gtest/gtest.h"
#include "tests/graph/fake_passes.h"

namespace rgfx::graph::testing {
namespace {

GraphDesc Sample() {
  GraphDesc desc = BlurChain(2);
  desc.passes[0].params.Set("radius", int64_t{8});
  desc.passes[0].params.Set("sigma", 0.1);
  desc.passes[1].params.Set("border", std::string("wrap"));
  return desc;
}

TEST(CanonicalKey, EqualDescriptionsGiveEqualKeys) {
  EXPECT_EQ(CanonicalKey(Sample()), CanonicalKey(Sample()));
  // Params are a map: the order they were set in does not matter.
  GraphDesc a = Sample(), b = Sample();
  a.passes[0].params = {};
  a.passes[0].params.Set("sigma", 0.1);
  a.passes[0].params.Set("radius", int64_t{8});
  EXPECT_EQ(CanonicalKey(a), CanonicalKey(b));
}

TEST(CanonicalKey, EveryFieldChangesTheKey) {
  const std::string base = CanonicalKey(Sample());
  std::vector<std::function<void(GraphDesc&)>> changes = {
      [](GraphDesc& d) { d.working_format = PixelFormat::kRgba32F; },
      [](GraphDesc& d) { d.inputs[0].name = "photo2"; },
      [](GraphDesc& d) { d.inputs[0].extent.width = 65; },
      [](GraphDesc& d) { d.inputs[0].extent.height = 33; },
      [](GraphDesc& d) { d.inputs[0].format = PixelFormat::kRgba16; },
      [](GraphDesc& d) { d.inputs[0].color_space = ColorSpace::kLinear; },
      [](GraphDesc& d) { d.inputs[0].alpha = AlphaMode::kPremultiplied; },
      [](GraphDesc& d) { d.passes[0].name = "blurX"; },
      [](GraphDesc& d) { d.passes[0].type = "downsample"; },
      [](GraphDesc& d) { d.passes[1].inputs = {"photo"}; },
      [](GraphDesc& d) { d.passes[1].outputs = {"b3"}; },
      [](GraphDesc& d) { d.passes[0].params.Set("radius", int64_t{9}); },
      [](GraphDesc& d) { d.passes[0].params.Set("radius", 8.0); },  // type matters
      [](GraphDesc& d) { d.passes[0].params.Set("sigma", 0.1 + 1e-17 + 2e-17); },
      [](GraphDesc& d) { d.passes[0].params.Set("sigma", std::nextafter(0.1, 1.0)); },
      [](GraphDesc& d) { d.passes[1].params.Set("border", std::string("clamp")); },
      [](GraphDesc& d) { d.passes[1].params.Set("normalize", false); },
      [](GraphDesc& d) { d.outputs[0].name = "b1"; },
      [](GraphDesc& d) { d.outputs[0].format = PixelFormat::kRgba32F; },
      [](GraphDesc& d) { d.outputs[0].color_space = ColorSpace::kLinear; },
      [](GraphDesc& d) { d.outputs[0].alpha = AlphaMode::kPremultiplied; },
      [](GraphDesc& d) { d.outputs.push_back(Out("b1")); },
      [](GraphDesc& d) { d.inputs.push_back(In("other")); },
      [](GraphDesc& d) { std::swap(d.passes[0], d.passes[1]); },
  };
  for (size_t i = 0; i < changes.size(); ++i) {
    GraphDesc desc = Sample();
    changes[i](desc);
    if (i == 13 && desc.passes[0].params.Float("sigma") == 0.1) continue;  // rounded away
    EXPECT_NE(CanonicalKey(desc), base) << "change " << i;
  }
}

TEST(CanonicalKey, NamesCannotBeConfusedByTheirCharacters) {
  // Without length prefixes these two would print alike.
  GraphDesc a, b;
  a.passes = {P("x", "blur", {"a;b"}, {"c"})};
  b.passes = {P("x", "blur", {"a", "b"}, {"c"})};
  EXPECT_NE(CanonicalKey(a), CanonicalKey(b));
  GraphDesc c, d;
  c.inputs = {In("ab"), In("c")};
  d.inputs = {In("a"), In("bc")};
  EXPECT_NE(CanonicalKey(c), CanonicalKey(d));
}

}  // namespace
}  // namespace rgfx::graph::testing
