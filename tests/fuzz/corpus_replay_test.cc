// Runs every committed fuzz input through its target's body in an ordinary
// build: the seed corpus (tests/fuzz/corpus/TARGET/*) and the crash inputs
// kept as regressions (tests/fuzz/regressions/TARGET/*, one test each, named
// after the file, which names the bug). A body aborts on a broken invariant,
// and the sanitizer builds run this too.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/fuzz/fuzz_targets.h"

namespace rgfx::fuzz {
namespace {

namespace fs = std::filesystem;

struct Input {
  std::string target;
  fs::path path;
};
void PrintTo(const Input& input, std::ostream* os) { *os << input.path.string(); }

std::vector<Input> Inputs(const char* kind) {
  std::vector<Input> inputs;
  const fs::path root = fs::path(RGFX_FUZZ_DIR) / kind;
  for (const char* target : {"png_decode", "proto_graph", "graph_json"}) {
    if (!fs::is_directory(root / target)) continue;
    for (const fs::directory_entry& e : fs::directory_iterator(root / target)) {
      if (e.is_regular_file()) inputs.push_back({target, e.path()});
    }
  }
  std::sort(inputs.begin(), inputs.end(),
            [](const Input& a, const Input& b) { return a.path < b.path; });
  return inputs;
}

// Peak virtual memory of this process (VmPeak), KiB.
int64_t PeakVirtualKib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmPeak:", 0) == 0) return std::stoll(line.substr(7));
  }
  return -1;
}

// An input of a few KB must not make the code reserve more than this: the
// server would do the same per request (a 50-byte PNG whose chunk length
// says 1.9 GB once made libpng malloc 1.9 GB). The png_decode body itself
// allocates at most 3 images of 2^20 pixels * 8 bytes.
constexpr int64_t kMaxNewPeakKib = 256 << 10;

void RunInput(const Input& input) {
  std::ifstream in(input.path, std::ios::binary);
  ASSERT_TRUE(in) << input.path;
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  FuzzBody body = FindTarget(input.target);
  ASSERT_NE(body, nullptr) << input.target;
  const int64_t peak_before = PeakVirtualKib();
  EXPECT_EQ(body(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), 0);
  const int64_t peak_after = PeakVirtualKib();
  EXPECT_LT(peak_after - peak_before, kMaxNewPeakKib)
      << input.path << " (" << bytes.size() << " bytes) raised the peak virtual memory by "
      << (peak_after - peak_before) / 1024 << " MiB";
}

std::string TestName(const ::testing::TestParamInfo<Input>& info) {
  std::string name = info.param.target + "_" + info.param.path.stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

TEST(FuzzCorpus, EveryTargetHasSeeds) {
  const std::vector<Input> seeds = Inputs("corpus");
  for (const char* target : {"png_decode", "proto_graph", "graph_json"}) {
    EXPECT_TRUE(std::any_of(seeds.begin(), seeds.end(),
                            [&](const Input& i) { return i.target == target; }))
        << "no seeds for " << target;
  }
}

class FuzzSeed : public ::testing::TestWithParam<Input> {};
TEST_P(FuzzSeed, RunsClean) { RunInput(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Corpus, FuzzSeed, ::testing::ValuesIn(Inputs("corpus")), TestName);

class FuzzRegression : public ::testing::TestWithParam<Input> {};
TEST_P(FuzzRegression, RunsClean) { RunInput(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Crash, FuzzRegression, ::testing::ValuesIn(Inputs("regressions")),
                         TestName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FuzzRegression);

}  // namespace
}  // namespace rgfx::fuzz
