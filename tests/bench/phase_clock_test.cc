// The phase clock's records, without a GPU: what the shader writes decodes
// to what it measured, damaged records are refused, and the summary's
// phases and residency follow from made-up timelines whose answers are
// known.
#include "tests/bench/phase_clock.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rgfx::bench {
namespace {

// The nine texels PHASE_END() writes for one workgroup: 1, then the
// multiprocessor (2 bytes), start (4), realtime start (4) and end (4),
// staged, computed, outputs, end, swept and scanned (3 each), three 0;
// bytes most significant first.
void Append(std::vector<float>& texels, const PhaseRecord& r) {
  const auto put = [&](uint32_t v, int count) {
    for (int i = count - 1; i >= 0; --i) texels.push_back(float((v >> (8 * i)) & 0xff));
  };
  texels.push_back(1.0f);
  put(r.multiprocessor, 2);
  put(r.start, 4);
  put(r.realtime_start, 4);
  put(r.realtime_end, 4);
  put(r.staged, 3);
  put(r.computed, 3);
  put(r.outputs, 3);
  put(r.end, 3);
  put(r.swept, 3);
  put(r.scanned, 3);
  for (int i = 0; i < 3; ++i) texels.push_back(0.0f);
}

// A workgroup on `sm` starting at clock `start` (realtime: one cycle a
// nanosecond, from 1000), staging for `stage` cycles, computing for
// `compute`, finishing for `finish`.
PhaseRecord Workgroup(uint32_t sm, uint32_t start, uint32_t stage, uint32_t compute,
                      uint32_t finish) {
  PhaseRecord r;
  r.multiprocessor = sm;
  r.start = start;
  r.realtime_start = 1000 + start;
  r.staged = stage;
  r.computed = stage + compute;
  r.outputs = stage + compute + finish / 2;
  r.end = stage + compute + finish;
  r.realtime_end = r.realtime_start + r.end;
  return r;
}

TEST(PhaseClock, RecordsDecodeToWhatTheShaderMeasured) {
  // The clock wraps within a; b's multiprocessor needs both its bytes.
  const PhaseRecord a = Workgroup(131, 0xfffff000u, 700, 9000, 300);
  PhaseRecord b = Workgroup(300, 123456789, 1, 2, 0xfffffa);
  b.swept = 2;  // b's kernel marks its sweep and scan too
  b.scanned = 3;
  b.computed = 3;
  std::vector<float> texels;
  Append(texels, a);
  Append(texels, b);
  const auto records = DecodePhaseRecords(texels, 2);
  ASSERT_TRUE(records.ok()) << records.status();
  for (int i = 0; i < 2; ++i) {
    const PhaseRecord& want = i == 0 ? a : b;
    const PhaseRecord& got = (*records)[i];
    EXPECT_EQ(got.multiprocessor, want.multiprocessor);
    EXPECT_EQ(got.start, want.start);
    EXPECT_EQ(got.realtime_start, want.realtime_start);
    EXPECT_EQ(got.realtime_end, want.realtime_end);
    EXPECT_EQ(got.staged, want.staged);
    EXPECT_EQ(got.computed, want.computed);
    EXPECT_EQ(got.outputs, want.outputs);
    EXPECT_EQ(got.end, want.end);
    EXPECT_EQ(got.swept, want.swept);
    EXPECT_EQ(got.scanned, want.scanned);
  }
}

TEST(PhaseClock, RefusesRecordsNotWrittenOrOutOfOrder) {
  std::vector<float> texels;
  Append(texels, Workgroup(3, 100, 10, 20, 30));
  texels.resize(texels.size() + kPhaseRecordTexels * 4, 0.0f);  // a workgroup that wrote nothing
  EXPECT_FALSE(DecodePhaseRecords(texels, 2).ok());
  EXPECT_FALSE(DecodePhaseRecords(texels, 3).ok());  // fewer texels than workgroups
  EXPECT_TRUE(DecodePhaseRecords(texels, 1).ok());
  PhaseRecord backwards = Workgroup(3, 100, 10, 20, 30);
  backwards.outputs = backwards.staged - 1;
  std::vector<float> bad;
  Append(bad, backwards);
  EXPECT_FALSE(DecodePhaseRecords(bad, 1).ok());
  PhaseRecord scan_after_compute = Workgroup(3, 100, 10, 20, 30);
  scan_after_compute.swept = 15;
  scan_after_compute.scanned = scan_after_compute.computed + 1;
  std::vector<float> late_scan;
  Append(late_scan, scan_after_compute);
  EXPECT_FALSE(DecodePhaseRecords(late_scan, 1).ok());
  std::vector<float> not_integer;
  Append(not_integer, Workgroup(3, 100, 10, 20, 30));
  EXPECT_TRUE(DecodePhaseRecords(not_integer, 1).ok());
  not_integer[8] = 0.5f;
  EXPECT_FALSE(DecodePhaseRecords(not_integer, 1).ok());
  std::vector<float> not_byte;  // what a value would read unsplit
  Append(not_byte, Workgroup(3, 100, 10, 20, 30));
  not_byte[6] = 256.0f;
  EXPECT_FALSE(DecodePhaseRecords(not_byte, 1).ok());
}

// Two multiprocessors. On the first, two workgroups in lockstep (both
// stage for 100 cycles, compute for 300, finish for 100); on the second,
// two offset by 100 cycles, so that one computes while the other stages.
TEST(PhaseClock, SummaryFollowsTheTimelines) {
  std::vector<PhaseRecord> records = {Workgroup(0, 5000, 100, 300, 100),
                                      Workgroup(0, 5000, 100, 300, 100),
                                      Workgroup(7, 9000, 100, 300, 100),
                                      Workgroup(7, 9100, 100, 300, 100)};
  const PhaseSummary s = SummarizePhases(records);
  EXPECT_EQ(s.workgroups, 4u);
  EXPECT_EQ(s.multiprocessors, 2u);
  EXPECT_DOUBLE_EQ(s.cycles_per_ns, 1.0);
  // Realtime: from 6000 (5000 + 1000) to 10600 (9100 + 1000 + 500).
  EXPECT_DOUBLE_EQ(s.dispatch_us, 4.6);
  EXPECT_DOUBLE_EQ(s.stage_us, 0.1);
  EXPECT_DOUBLE_EQ(s.compute_us, 0.3);
  EXPECT_DOUBLE_EQ(s.outputs_us, 0.05);
  EXPECT_DOUBLE_EQ(s.store_us, 0.05);
  EXPECT_DOUBLE_EQ(s.total_us, 0.5);
  EXPECT_EQ(s.most_resident, 2u);
  // Busy: 500 cycles on the first, 600 on the second; workgroup-cycles
  // 2 · 500 on each: 2000 / 1100 resident on average, of which computing
  // 4 · 300 / 1100.
  EXPECT_NEAR(s.resident, 2000.0 / 1100, 1e-12);
  EXPECT_NEAR(s.computing, 1200.0 / 1100, 1e-12);
  EXPECT_NEAR(s.staging, 400.0 / 1100, 1e-12);
  // Nobody computes: the first 100 and last 100 cycles of the first; the
  // first 100 and last 100 of the second.
  EXPECT_NEAR(s.idle_compute_share, 400.0 / 1100, 1e-12);
  EXPECT_DOUBLE_EQ(s.busy_us, 0.6);  // median of 0.5 and 0.6 (the upper)
}

// A kernel that marks its first sweep and its scan: the arithmetic splits
// into the three; one that does not (fast's) has no split.
TEST(PhaseClock, SummarySplitsTheArithmeticWhereTheKernelMarksIt) {
  std::vector<PhaseRecord> records;
  for (uint32_t scan : {50u, 70u, 90u}) {
    PhaseRecord r = Workgroup(0, 1000, 100, 300, 100);
    r.swept = 100 + 120;
    r.scanned = r.swept + scan;
    records.push_back(r);
  }
  const PhaseSummary s = SummarizePhases(records);
  ASSERT_TRUE(s.split);
  EXPECT_DOUBLE_EQ(s.first_sweep_us, 0.12);
  EXPECT_DOUBLE_EQ(s.scan_us, 0.07);
  EXPECT_DOUBLE_EQ(s.second_sweep_us, 0.11);  // 300 − 120 − 70 cycles, the median
  EXPECT_NE(FormatPhaseSummary(s).find("first sweep 0.12, scan 0.07, second sweep 0.11"),
            std::string::npos)
      << FormatPhaseSummary(s);
  records.push_back(Workgroup(0, 1000, 100, 300, 100));  // no marks: no split
  const PhaseSummary unsplit = SummarizePhases(records);
  EXPECT_FALSE(unsplit.split);
  EXPECT_EQ(FormatPhaseSummary(unsplit).find("first sweep"), std::string::npos);
}

TEST(PhaseClock, RecordsImageHoldsEveryWorkgroup) {
  for (uint64_t workgroups : {1ull, 31ull, 32ull, 33ull, 17280ull}) {
    const graph::Extent e = PhaseRecordsExtent(workgroups);
    EXPECT_GE(uint64_t{e.width} * e.height, workgroups * kPhaseRecordTexels) << workgroups;
    EXPECT_EQ(e.width % kPhaseRecordTexels, 0u);
  }
}

}  // namespace
}  // namespace rgfx::bench
