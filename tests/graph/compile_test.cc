// Compile(): order, culling, planning, lifetimes, aliasing, barriers, stats.
#include "graph/compile.h"

#include "gmock/gmock.h"
#include "graph/compile_steps.h"
#include "gtest/gtest.h"
#include "tests/graph/fake_passes.h"

namespace rgfx::graph::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

const PassRegistry& Registry() {
  static const auto* registry = MakeFakeRegistry().release();
  return *registry;
}

std::shared_ptr<const CompiledGraph> MustCompile(const GraphDesc& desc) {
  auto compiled = Compile(desc, Registry(), gpu::LavapipeLikeCaps());
  EXPECT_TRUE(compiled.ok()) << compiled.status();
  return compiled.ok() ? *compiled : std::make_shared<const CompiledGraph>();
}

constexpr uint64_t kImageBytes = 64 * 32 * 8;  // a 64×32 RGBA16F image

// --- Order ---

TEST(GraphCompile, OrdersImportsFirstAndExportsLastInTheirListedOrder) {
  GraphDesc desc;
  desc.inputs = {In("a"), In("b")};
  desc.passes = {P("mix", "composite", {"b", "a"}, {"m"}), P("blur", "blur", {"a"}, {"s"})};
  desc.outputs = {Out("s"), Out("m")};
  auto graph = MustCompile(desc);
  EXPECT_THAT(PassNames(*graph),
              ElementsAre("import:a", "import:b", "mix", "blur", "export:s", "export:m"));
}

TEST(GraphCompile, OrderFollowsDependenciesNotListing) {
  GraphDesc desc;
  desc.inputs = {In("photo")};
  desc.passes = {P("second", "blur", {"y"}, {"z"}), P("first", "blur", {"photo"}, {"y"})};
  desc.outputs = {Out("z")};
  EXPECT_THAT(PassNames(*MustCompile(desc)),
              ElementsAre("import:photo", "first", "second", "export:z"));
}

TEST(GraphCompile, OrderBreaksTiesByListing) {
  GraphDesc desc;
  desc.inputs = {In("photo")};
  desc.passes = {P("p1", "downsample", {"photo"}, {"a"}), P("p2", "downsample", {"a"}, {"b"}),
                 P("q1", "downsample", {"photo"}, {"c"})};
  desc.outputs = {Out("b"), Out("c")};
  // After p1 both p2 and q1 are ready: p2 is listed first.
  EXPECT_THAT(PassNames(*MustCompile(desc)),
              ElementsAre("import:photo", "p1", "p2", "q1", "export:b", "export:c"));
  // Listed the other way round, q1 goes first.
  std::swap(desc.passes[0], desc.passes[2]);
  EXPECT_THAT(PassNames(*MustCompile(desc)),
              ElementsAre("import:photo", "q1", "p1", "p2", "export:b", "export:c"));
}

TEST(GraphCompile, OrderIsDeterministic) {
  GraphDesc desc = BlurChain(3);
  desc.passes.push_back(P("side", "downsample", {"b1"}, {"small"}));
  desc.outputs.push_back(Out("small"));
  const auto first = PassNames(*MustCompile(desc));
  for (int i = 0; i < 5; ++i) EXPECT_EQ(PassNames(*MustCompile(desc)), first);
}

TEST(GraphCompile, OrderStepRunsAlone) {
  auto validated = internal::Validate(BlurChain(2), Registry(), {});
  ASSERT_TRUE(validated.ok());
  auto order = internal::Order(*validated);
  ASSERT_TRUE(order.ok());
  EXPECT_THAT(*order, ElementsAre(0, 1, 2, 3));  // import, blur1, blur2, export
}

// --- Cull ---

TEST(GraphCompile, CullsPassWithoutOutputs) {
  GraphDesc desc = BlurChain(1);
  desc.passes.push_back(P("unused", "blur", {"photo"}, {"u1"}));
  desc.passes.push_back(P("unused2", "downsample", {"u1"}, {"u2"}));
  auto graph = MustCompile(desc);
  EXPECT_THAT(graph->culled, ElementsAre("unused", "unused2"));
  EXPECT_EQ(graph->stats.passes_culled, 2);
  EXPECT_EQ(graph->stats.passes_run, 1);
  EXPECT_THAT(PassNames(*graph), ElementsAre("import:photo", "blur1", "export:b1"));
  EXPECT_EQ(FindResource(*graph, "u1"), -1);
  EXPECT_EQ(FindResource(*graph, "unused#tmp0"), -1);
}

TEST(GraphCompile, CullsUnreadInputsSilently) {
  GraphDesc desc = BlurChain(1);
  desc.inputs.push_back(In("spare"));
  auto graph = MustCompile(desc);
  EXPECT_THAT(graph->imported, ElementsAre(FindResource(*graph, "photo@raw"), -1));
  EXPECT_THAT(graph->culled, IsEmpty());
  EXPECT_EQ(graph->stats.passes_culled, 0);
  EXPECT_EQ(FindResource(*graph, "spare@raw"), -1);
}

TEST(GraphCompile, CullStepRunsAlone) {
  GraphDesc desc = BlurChain(1);
  desc.passes.push_back(P("unused", "blur", {"photo"}, {"u"}));
  auto validated = internal::Validate(desc, Registry(), {});
  ASSERT_TRUE(validated.ok());
  // Nodes: import:photo, blur1, unused, export:b1.
  EXPECT_THAT(internal::Cull(*validated), ElementsAre(true, true, false, true));
}

TEST(GraphCompile, OutputMayBeAnInputDirectly) {
  GraphDesc desc;
  desc.inputs = {In("photo")};
  desc.outputs = {Out("photo")};
  desc.outputs[0].format = PixelFormat::kRgba16;
  auto graph = MustCompile(desc);
  EXPECT_THAT(PassNames(*graph), ElementsAre("import:photo", "export:photo"));
  EXPECT_EQ(graph->stats.passes_run, 0);
  EXPECT_EQ(graph->stats.steps, 2);
  const LogicalResource& out = graph->resources[graph->exported[0]];
  EXPECT_EQ(out.name, "photo@out");
  EXPECT_EQ(out.bytes, 64u * 32 * 8);
}

// --- Plan ---

TEST(GraphCompile, PlansResourcesInTheRightFormats) {
  GraphDesc desc = BlurChain(1);
  desc.inputs[0].format = PixelFormat::kRgba32F;
  desc.outputs[0].format = PixelFormat::kRgba8;
  auto graph = MustCompile(desc);
  const LogicalResource& raw = graph->resources[graph->imported[0]];
  EXPECT_EQ(raw.name, "photo@raw");
  EXPECT_EQ(raw.kind, ResourceKind::kImported);
  EXPECT_EQ(raw.format, PixelFormat::kRgba32F);
  EXPECT_EQ(raw.bytes, 64u * 32 * 16);
  const LogicalResource& photo = graph->resources[FindResource(*graph, "photo")];
  EXPECT_EQ(photo.kind, ResourceKind::kTransient);
  EXPECT_EQ(photo.format, PixelFormat::kRgba16F);
  EXPECT_EQ(photo.bytes, kImageBytes);
  const LogicalResource& temp = graph->resources[FindResource(*graph, "blur1#tmp0")];
  EXPECT_EQ(temp.kind, ResourceKind::kTransient);
  EXPECT_EQ(temp.extent, (Extent{64, 32}));
  const LogicalResource& out = graph->resources[graph->exported[0]];
  EXPECT_EQ(out.name, "b1@out");
  EXPECT_EQ(out.kind, ResourceKind::kExported);
  EXPECT_EQ(out.format, PixelFormat::kRgba8);
  EXPECT_EQ(out.bytes, 64u * 32 * 4);
}

TEST(GraphCompile, WorkingFormatSetsTransientBytes) {
  GraphDesc desc = BlurChain(1);
  desc.working_format = PixelFormat::kRgba32F;
  auto graph = MustCompile(desc);
  EXPECT_EQ(graph->resources[FindResource(*graph, "b1")].bytes, 64u * 32 * 16);
  EXPECT_EQ(graph->resources[FindResource(*graph, "b1")].format, PixelFormat::kRgba32F);
}

TEST(GraphCompile, ImportAndExportTakeTheirParamsFromTheDescription) {
  GraphDesc desc = BlurChain(1);
  desc.inputs[0].format = PixelFormat::kRgba16;
  desc.inputs[0].color_space = ColorSpace::kLinear;
  desc.inputs[0].alpha = AlphaMode::kPremultiplied;
  desc.outputs[0].format = PixelFormat::kRgba32F;
  auto graph = MustCompile(desc);
  const CompiledPass& import = graph->passes.front();
  EXPECT_TRUE(import.internal);
  EXPECT_EQ(import.type, "import");
  EXPECT_EQ(import.params.Enum("format"), "rgba16");
  EXPECT_EQ(import.params.Enum("color_space"), "linear");
  EXPECT_EQ(import.params.Enum("alpha"), "premultiplied");
  const CompiledPass& exp = graph->passes.back();
  EXPECT_EQ(exp.type, "export");
  EXPECT_EQ(exp.params.Enum("format"), "rgba32f");
  EXPECT_EQ(exp.params.Enum("color_space"), "srgb");
  EXPECT_EQ(exp.params.Enum("alpha"), "straight");
}

TEST(GraphCompile, PlansStepsContiguouslyPerPass) {
  auto graph = MustCompile(BlurChain(2));
  ASSERT_EQ(graph->passes.size(), 4u);
  const CompiledPass& blur = graph->passes[1];
  EXPECT_FALSE(blur.internal);
  EXPECT_EQ(blur.first_step, 1);
  EXPECT_EQ(blur.num_steps, 2);
  EXPECT_EQ(blur.plan.variant, "fake");
  EXPECT_EQ(blur.params.Int("radius"), 4);  // default filled
  EXPECT_THAT(blur.input_extents, ElementsAre(Extent{64, 32}));
  ASSERT_EQ(graph->steps.size(), 6u);
  const CompiledStep& h = graph->steps[1];
  EXPECT_EQ(h.pass, 1);
  EXPECT_EQ(h.step, 0);
  EXPECT_THAT(h.reads, ElementsAre(FindResource(*graph, "photo")));
  EXPECT_THAT(h.writes, ElementsAre(FindResource(*graph, "blur1#tmp0")));
  const CompiledStep& v = graph->steps[2];
  EXPECT_EQ(v.step, 1);
  EXPECT_THAT(v.reads, ElementsAre(FindResource(*graph, "blur1#tmp0")));
  EXPECT_THAT(v.writes, ElementsAre(FindResource(*graph, "b1")));
  EXPECT_EQ(graph->passes[2].first_step, 3);
  EXPECT_EQ(graph->stats.steps, 6);
}

TEST(GraphCompile, OutputExtentsFollowThePlan) {
  GraphDesc desc;
  desc.inputs = {In("photo", 64, 32)};
  desc.passes = {P("d1", "downsample", {"photo"}, {"half"}),
                 P("d2", "downsample", {"half"}, {"quarter"})};
  desc.outputs = {Out("quarter")};
  auto graph = MustCompile(desc);
  EXPECT_EQ(graph->resources[FindResource(*graph, "half")].extent, (Extent{32, 16}));
  EXPECT_EQ(graph->resources[graph->exported[0]].extent, (Extent{16, 8}));
  EXPECT_EQ(graph->resources[graph->exported[0]].bytes, 16u * 8 * 4);
}

// --- Lifetimes ---

TEST(GraphCompile, LifetimesSpanFirstWriteToLastRead) {
  auto graph = MustCompile(BlurChain(1));  // steps: import, H, V, export
  auto life = [&](const std::string& name) {
    const LogicalResource& r = graph->resources[FindResource(*graph, name)];
    return std::make_pair(r.first_step, r.last_step);
  };
  EXPECT_EQ(life("photo@raw"), std::make_pair(-1, 0));
  EXPECT_EQ(life("photo"), std::make_pair(0, 1));
  EXPECT_EQ(life("blur1#tmp0"), std::make_pair(1, 2));
  EXPECT_EQ(life("b1"), std::make_pair(2, 3));
  EXPECT_EQ(life("b1@out"), std::make_pair(3, 4));
}

TEST(GraphCompile, ResourceReadByManyLivesUntilItsLastReader) {
  GraphDesc desc = BlurChain(1);
  desc.passes.push_back(P("late", "composite", {"b1", "photo"}, {"mixed"}));
  desc.outputs.push_back(Out("mixed"));
  auto graph = MustCompile(desc);
  // photo is read by blur1's first step (1) and by late (3).
  EXPECT_EQ(graph->resources[FindResource(*graph, "photo")].last_step, 3);
}

TEST(GraphCompile, UnreadOutputLivesOnlyWhileWritten) {
  GraphDesc desc;
  desc.inputs = {In("photo")};
  desc.passes = {P("s", "split", {"photo"}, {"low", "high"})};
  desc.outputs = {Out("low")};
  auto graph = MustCompile(desc);
  const LogicalResource& high = graph->resources[FindResource(*graph, "high")];
  EXPECT_EQ(high.first_step, 1);
  EXPECT_EQ(high.last_step, 1);
}

// --- Aliasing ---

TEST(GraphCompile, BlurChainPingPongsBetweenTwoBuffers) {
  auto graph = MustCompile(BlurChain(4));
  EXPECT_EQ(graph->stats.transient_buffers, 2);
  EXPECT_EQ(graph->stats.transient_bytes, 2 * kImageBytes);
  // photo, and a temp and an output per blur.
  EXPECT_EQ(graph->stats.transient_bytes_unaliased, 9 * kImageBytes);
  // Imported and exported images have their own buffers.
  EXPECT_EQ(graph->buffers.size(), 4u);
  const LogicalResource& raw = graph->resources[graph->imported[0]];
  EXPECT_EQ(graph->buffers[raw.physical].kind, ResourceKind::kImported);
  EXPECT_THAT(graph->buffers[raw.physical].resources, ElementsAre(graph->imported[0]));
}

TEST(GraphCompile, AliasedResourcesNeverOverlapInTime) {
  GraphDesc desc = BlurChain(3);
  desc.passes.push_back(P("late", "composite", {"b3", "photo", "b1"}, {"mixed"}));
  desc.passes.push_back(P("down", "downsample", {"b2"}, {"small"}));
  desc.outputs.push_back(Out("mixed"));
  desc.outputs.push_back(Out("small"));
  auto graph = MustCompile(desc);
  for (const PhysicalBuffer& buffer : graph->buffers) {
    for (int a : buffer.resources) {
      const LogicalResource& ra = graph->resources[a];
      EXPECT_LE(ra.bytes, buffer.bytes);
      for (int b : buffer.resources) {
        if (a >= b) continue;
        const LogicalResource& rb = graph->resources[b];
        EXPECT_TRUE(ra.last_step < rb.first_step || rb.last_step < ra.first_step)
            << ra.name << " and " << rb.name << " share buffer";
      }
    }
  }
  EXPECT_LT(graph->stats.transient_bytes, graph->stats.transient_bytes_unaliased);
}

LogicalResource Transient(std::string name, uint64_t bytes, int first, int last) {
  LogicalResource r;
  r.name = std::move(name);
  r.bytes = bytes;
  r.first_step = first;
  r.last_step = last;
  return r;
}

TEST(GraphCompile, AliasPicksTheBestFittingFreeBuffer) {
  CompiledGraph graph;
  graph.resources = {Transient("big", 100, 0, 1), Transient("small", 50, 0, 1),
                     Transient("fits_small", 40, 2, 3), Transient("huge", 200, 2, 3)};
  internal::AliasTransients(graph);
  ASSERT_EQ(graph.buffers.size(), 2u);
  EXPECT_EQ(graph.resources[2].physical, graph.resources[1].physical);  // 50 fits 40 best
  EXPECT_EQ(graph.resources[3].physical, graph.resources[0].physical);  // grown to 200
  EXPECT_EQ(graph.buffers[graph.resources[0].physical].bytes, 200u);
  EXPECT_EQ(graph.buffers[graph.resources[1].physical].bytes, 50u);
}

TEST(GraphCompile, AliasNeedsLifetimeToEndStrictlyBefore) {
  CompiledGraph graph;
  // b is written by the step that last reads a: they must not share.
  graph.resources = {Transient("a", 10, 0, 1), Transient("b", 10, 1, 2), Transient("c", 10, 2, 3)};
  internal::AliasTransients(graph);
  EXPECT_NE(graph.resources[0].physical, graph.resources[1].physical);
  EXPECT_EQ(graph.resources[2].physical, graph.resources[0].physical);
}

// --- Barriers ---

TEST(GraphCompile, ChainNeedsABarrierBeforeEveryStepAfterTheFirst) {
  auto graph = MustCompile(BlurChain(4));
  ASSERT_EQ(graph->steps.size(), 10u);
  EXPECT_THAT(BarrierSteps(*graph), ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9));
  EXPECT_EQ(graph->stats.barriers, 9);
}

TEST(GraphCompile, IndependentPassesReadingOneInputShareNoBarrier) {
  GraphDesc desc;
  desc.inputs = {In("photo")};
  desc.passes = {P("a", "downsample", {"photo"}, {"half_a"}),
                 P("b", "downsample", {"photo"}, {"half_b"})};
  desc.outputs = {Out("half_a"), Out("half_b")};
  auto graph = MustCompile(desc);
  // import | a, b | export:half_a, export:half_b
  EXPECT_THAT(PassNames(*graph),
              ElementsAre("import:photo", "a", "b", "export:half_a", "export:half_b"));
  EXPECT_THAT(BarrierSteps(*graph), ElementsAre(1, 3));
  EXPECT_EQ(graph->stats.barriers, 2);
}

TEST(GraphCompile, ReusedBufferNeedsAWriteAfterReadBarrier) {
  GraphDesc desc;
  desc.inputs = {In("photo")};
  desc.passes = {P("a", "blur", {"photo"}, {"soft_a"}), P("b", "blur", {"photo"}, {"soft_b"})};
  desc.outputs = {Out("soft_a"), Out("soft_b")};
  auto graph = MustCompile(desc);
  // Steps: 0 import, 1 a.H, 2 a.V, 3 b.H, 4 b.V, 5/6 exports. b's temp reuses
  // a's temp buffer, last read by step 2: b.H overwrites it.
  const int temp_a = FindResource(*graph, "a#tmp0");
  const int temp_b = FindResource(*graph, "b#tmp0");
  ASSERT_EQ(graph->resources[temp_a].physical, graph->resources[temp_b].physical);
  const auto hazards = internal::FindHazards(*graph);
  EXPECT_TRUE(graph->steps[3].barrier_before);
  EXPECT_THAT(hazards[3].read_after_write, IsEmpty());
  EXPECT_THAT(hazards[3].write_after_use, ElementsAre(graph->resources[temp_b].physical));
}

TEST(GraphCompile, BarrierStepRunsAlone) {
  CompiledGraph graph;
  graph.resources = {Transient("x", 4, 0, 1), Transient("y", 4, 0, 2), Transient("z", 4, 1, 2)};
  for (int i = 0; i < 3; ++i) graph.resources[i].physical = i;
  graph.steps.resize(4);
  graph.steps[0].writes = {0};  // write x
  graph.steps[1].writes = {1};  // write y: independent of step 0
  graph.steps[2].reads = {0};   // read x: after write (step 0)
  graph.steps[2].writes = {2};
  graph.steps[3].reads = {1, 2};  // read z written since the last barrier
  internal::PlaceBarriers(graph);
  EXPECT_THAT(BarrierSteps(graph), ElementsAre(2, 3));
}

TEST(GraphCompile, WriteAfterWriteNeedsABarrier) {
  CompiledGraph graph;
  graph.resources = {Transient("x", 4, 0, 1)};
  graph.resources[0].physical = 0;
  graph.steps.resize(2);
  graph.steps[0].writes = {0};
  graph.steps[1].writes = {0};
  internal::PlaceBarriers(graph);
  EXPECT_THAT(BarrierSteps(graph), ElementsAre(1));
}

// --- Stats and the compiled graph's context ---

TEST(GraphCompile, KeepsDescriptionAndCaps) {
  const GraphDesc desc = BlurChain(2);
  auto graph = MustCompile(desc);
  EXPECT_EQ(CanonicalKey(graph->desc), CanonicalKey(desc));
  EXPECT_EQ(graph->caps.name, gpu::LavapipeLikeCaps().name);
  EXPECT_EQ(graph->stats.passes_run, 2);
  EXPECT_EQ(graph->stats.passes_culled, 0);
}

}  // namespace
}  // namespace rgfx::graph::testing

namespace rgfx::graph::testing {
namespace {

using ::testing::HasSubstr;

// An RGBA8 output with PNG scanlines takes the pixels, the rows and a flag
// per row in one exported buffer; the description's key tells the two apart
// (they compile to different graphs); other formats are refused.
TEST(GraphCompile, PngRowsSizeTheExportedBuffer) {
  GraphDesc desc;
  desc.inputs = {In("a", 7, 3)};
  desc.passes = {P("blur", "blur", {"a"}, {"s"})};
  desc.outputs = {Out("s")};
  const std::string plain_key = CanonicalKey(desc);
  desc.outputs[0].png_rows = true;
  EXPECT_NE(CanonicalKey(desc), plain_key);
  auto graph = MustCompile(desc);
  const LogicalResource& out = graph->resources[graph->exported[0]];
  const PngRowsLayout layout = PngRowsLayoutOf({7, 3});
  EXPECT_EQ(out.bytes, layout.total_bytes);
  EXPECT_EQ(layout.pixel_bytes, 7u * 3 * 4);
  EXPECT_EQ(layout.rows_offset, 256u);
  EXPECT_EQ(layout.row_stride, 22u);
  EXPECT_EQ(layout.flags_offset, 512u);
  EXPECT_EQ(layout.total_bytes, 512u + 12);
  EXPECT_TRUE(graph->passes.back().params.Bool("png_rows"));

  desc.outputs[0].format = PixelFormat::kRgba16;
  auto refused = Compile(desc, Registry(), gpu::LavapipeLikeCaps());
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("RGBA8 outputs only"));
}

TEST(GraphCompile, PngRowsLayoutAlignsEveryPart) {
  for (Extent e : {Extent{1, 1}, Extent{1920, 1080}, Extent{63, 65}, Extent{4096, 1}}) {
    const PngRowsLayout l = PngRowsLayoutOf(e);
    EXPECT_EQ(l.rows_offset % 256, 0u);
    EXPECT_EQ(l.flags_offset % 256, 0u);
    EXPECT_GE(l.rows_offset, e.pixels() * 4);
    EXPECT_GE(l.flags_offset, l.rows_offset + (1 + 3 * uint64_t{e.width}) * e.height);
    EXPECT_EQ(l.total_bytes, l.flags_offset + 4 * uint64_t{e.height});
  }
}

}  // namespace
}  // namespace rgfx::graph::testing
