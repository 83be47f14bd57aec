#include "graph/dot.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/graph/fake_passes.h"

namespace rgfx::graph::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

std::string DotOf(const GraphDesc& desc) {
  static const auto* registry = MakeFakeRegistry().release();
  auto compiled = Compile(desc, *registry, gpu::LavapipeLikeCaps());
  EXPECT_TRUE(compiled.ok()) << compiled.status();
  return compiled.ok() ? ToDot(**compiled) : "";
}

GraphDesc WithUnusedBranch() {
  GraphDesc desc = BlurChain(2);
  desc.passes.push_back(P("unused", "downsample", {"b1"}, {"small"}));
  return desc;
}

TEST(GraphDot, IsADigraphWithPassesAndResources) {
  const std::string dot = DotOf(WithUnusedBranch());
  EXPECT_THAT(dot, StartsWith("digraph rgfx {"));
  EXPECT_THAT(dot, HasSubstr("\"pass:blur1\" [shape=box"));
  EXPECT_THAT(dot, HasSubstr("\"pass:import:photo\" [shape=box, style=\"rounded,filled\""));
  EXPECT_THAT(dot, HasSubstr("\"pass:export:b2\""));
  // Resources carry extent, format and physical buffer.
  EXPECT_THAT(dot, HasSubstr("\"res:b1\" [shape=ellipse, style=solid, label=\"b1\\n64×32 "
                             "RGBA16F\\ntransient, buffer "));
  EXPECT_THAT(dot, HasSubstr("\"res:photo@raw\""));
  EXPECT_THAT(dot, HasSubstr("\"res:blur1#tmp0\" [shape=ellipse, style=dotted"));
  EXPECT_THAT(dot, HasSubstr("\"res:b1\" -> \"pass:blur2\""));
  EXPECT_THAT(dot, HasSubstr("\"pass:blur1\" -> \"res:b1\""));
  EXPECT_EQ(dot.back(), '\n');
  EXPECT_THAT(dot, HasSubstr("}\n"));
}

TEST(GraphDot, ShowsCulledPassesDashed) {
  const std::string dot = DotOf(WithUnusedBranch());
  EXPECT_THAT(
      dot,
      HasSubstr(
          "\"pass:unused\" [shape=box, style=dashed, label=\"unused\\ndownsample\\n(culled)\"]"));
  EXPECT_THAT(dot, HasSubstr("\"res:small\" [shape=ellipse, style=dashed"));
  EXPECT_THAT(dot, HasSubstr("\"res:b1\" -> \"pass:unused\" [style=dashed]"));
  EXPECT_THAT(DotOf(BlurChain(2)), Not(HasSubstr("dashed")));
}

TEST(GraphDot, MarksBarriers) {
  const std::string dot = DotOf(BlurChain(1));
  // blur1's horizontal step reads photo, written by the import.
  EXPECT_THAT(
      dot, HasSubstr("\"res:photo\" -> \"pass:blur1\" [color=red, style=bold, label=\"barrier\"]"));
  EXPECT_THAT(dot, HasSubstr("#1 horizontal [barrier]"));
  // The import's read of the uploaded image needs no compute barrier.
  EXPECT_THAT(dot, HasSubstr("\"res:photo@raw\" -> \"pass:import:photo\";"));
}

TEST(GraphDot, IsDeterministic) { EXPECT_EQ(DotOf(WithUnusedBranch()), DotOf(WithUnusedBranch())); }

TEST(GraphDot, EscapesQuotesInNames) {
  GraphDesc desc;
  desc.inputs = {In("say \"hi\"")};
  desc.outputs = {Out("say \"hi\"")};
  EXPECT_THAT(DotOf(desc), HasSubstr("\"res:say \\\"hi\\\"\""));
}

}  // namespace
}  // namespace rgfx::graph::testing
