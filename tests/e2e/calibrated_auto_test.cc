// --auto_calibration end to end, on the default device with validation on:
// a server measures the blur variants before it listens, "auto" then runs
// the fastest exact variant it measured, the catalog says so, and a restart
// reads the file instead of measuring; a file from another grid or one that
// cannot be parsed is measured again and rewritten.
#include <atomic>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "passes/blur_variants/auto_table.h"
#include "service/auto_table_file.h"
#include "tests/e2e/direct_client.h"
#include "tests/e2e/server_fixture.h"

namespace rgfx::testing {
namespace {

using ::testing::HasSubstr;

constexpr uint32_t kWidth = 61, kHeight = 37;  // odd, and one size of the grid

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A small grid, quick on lavapipe: one format and size, two radii (one
// where exact variants differ little, one where they differ much).
void Configure(service::ServerOptions& options, const std::string& file,
               std::vector<int> radii = {3, 24}) {
  service::AutoCalibrationOptions& c = options.auto_calibration;
  c.mode = service::AutoCalibrationMode::kAlways;
  c.file = file;
  c.formats = {graph::PixelFormat::kRgba16F};
  c.sizes = {{kWidth, kHeight}};
  c.radii = std::move(radii);
  c.runs = 3;
  c.submission = absl::Milliseconds(2);
}

// The measured rows leave the process with the test: other suites in this
// binary expect the built-in table and rule on this device.
class CalibratedAuto : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = ::testing::TempDir() + "rgfx_auto_calibration_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".txt";
    std::remove(file_.c_str());
  }
  void TearDown() override {
    if (vendor_ || device_) passes::SetMeasuredAutoRows(vendor_, device_, {});
    std::remove(file_.c_str());
  }
  std::unique_ptr<service::Server> Start(std::vector<int> radii = {3, 24},
                                         service::EngineTestHooks hooks = {}, int workers = 0) {
    std::unique_ptr<service::Server> server =
        StartServer(std::move(hooks), [&](service::ServerOptions& o) {
          Configure(o, file_, radii);
          if (workers > 0) o.engine.workers = workers;
        });
    if (server != nullptr) {
      vendor_ = server->engine().caps().vendor_id;
      device_ = server->engine().caps().device_id;
    }
    return server;
  }
  std::vector<service::CalibrationSection> FileSections() {
    absl::StatusOr<std::vector<service::CalibrationSection>> sections =
        service::ParseAutoTableFile(ReadText(file_));
    EXPECT_TRUE(sections.ok()) << sections.status();
    return sections.ok() ? *sections : std::vector<service::CalibrationSection>{};
  }

  std::string file_;
  uint32_t vendor_ = 0, device_ = 0;
};

std::string BlurGraph(int radius) {
  return R"({"passes": [{"name": "blur", "inputs": ["image"], "outputs": ["out"],
             "gaussianBlur": {"radius": )" +
         std::to_string(radius) + R"(}}], "outputs": ["out"]})";
}

TEST_F(CalibratedAuto, AutoRunsTheFastestExactVariantMeasuredAtStartUp) {
  std::unique_ptr<service::Server> server = Start();
  ASSERT_NE(server, nullptr);
  ASSERT_EQ(server->auto_calibration().size(), 1u);
  EXPECT_EQ(server->auto_calibration()[0].source, "measured");
  const std::vector<service::CalibrationSection> sections = FileSections();
  ASSERT_EQ(sections.size(), 1u);
  EXPECT_EQ(sections[0].rows.size(), server->auto_calibration()[0].rows);
  // Every variant that plans an exact request is measured at each radius.
  std::map<int, std::pair<std::string, double>> fastest_exact;
  for (const service::CalibratedRow& row : sections[0].rows) {
    EXPECT_EQ(row.width, kWidth);
    EXPECT_EQ(row.working, "rgba16f");
    EXPECT_GT(row.total_us, 0);
    if (row.approximate) continue;
    auto [it, added] = fastest_exact.try_emplace(row.radius, row.variant, row.total_us);
    if (!added && row.total_us < it->second.second) it->second = {row.variant, row.total_us};
  }
  ASSERT_EQ(fastest_exact.size(), 2u);
  for (const auto& [radius, fastest] : fastest_exact) {
    const Call call = Process(server->port(), RequestFromJson(BlurGraph(radius), SamplePng(kWidth, kHeight)),
                              absl::Seconds(60));
    ASSERT_TRUE(call.status.ok()) << call.status.error_message();
    std::string ran;
    for (const v1::PassTiming& pass : call.response.passes()) {
      if (pass.pass() == "blur") ran = pass.variant();
    }
    EXPECT_EQ(ran, fastest.first) << "radius " << radius << ": measured " << fastest.second
                                  << " µs for " << fastest.first;
  }
  // The catalog says where AUTO's choices come from.
  grpc::ClientContext context;
  v1::ListPassesResponse catalog;
  ASSERT_TRUE(v1::PostProcess::NewStub(NewChannel(server->port()))
                  ->ListPasses(&context, {}, &catalog)
                  .ok());
  bool said = false;
  for (const v1::PassInfo& pass : catalog.passes()) {
    for (const std::string& note : pass.notes()) {
      said |= note.find("auto chooses from " + std::to_string(sections[0].rows.size()) +
                        " times this server measured on this device at start-up") != std::string::npos;
    }
  }
  EXPECT_TRUE(said) << "no catalog note on the start-up measurements";
  ExpectNoValidationMessages(*server);
  server.reset();

  // A restart on the same device, build and grid reads the file.
  passes::SetMeasuredAutoRows(vendor_, device_, {});
  server = Start();
  ASSERT_NE(server, nullptr);
  ASSERT_EQ(server->auto_calibration().size(), 1u);
  EXPECT_EQ(server->auto_calibration()[0].source, "file");
  EXPECT_EQ(server->auto_calibration()[0].rows, sections[0].rows.size());
  EXPECT_EQ(FileSections(), sections) << "reading the file rewrote it";
  const Call again = Process(server->port(), RequestFromJson(BlurGraph(24), SamplePng(kWidth, kHeight)),
                             absl::Seconds(60));
  ASSERT_TRUE(again.status.ok()) << again.status.error_message();
  for (const v1::PassTiming& pass : again.response.passes()) {
    if (pass.pass() == "blur") {
      EXPECT_EQ(pass.variant(), fastest_exact[24].first);
    }
  }
  ExpectNoValidationMessages(*server);
}

TEST_F(CalibratedAuto, AnotherGridOrAnUnusableFileIsMeasuredAgain) {
  std::unique_ptr<service::Server> server = Start({5});
  ASSERT_NE(server, nullptr);
  ASSERT_EQ(server->auto_calibration().size(), 1u);
  server.reset();
  // Another grid: its key differs, so the section is replaced, not used.
  server = Start({7});
  ASSERT_NE(server, nullptr);
  ASSERT_EQ(server->auto_calibration().size(), 1u);
  EXPECT_EQ(server->auto_calibration()[0].source, "measured");
  std::vector<service::CalibrationSection> sections = FileSections();
  ASSERT_EQ(sections.size(), 1u) << "the device's old section was kept beside the new";
  for (const service::CalibratedRow& row : sections[0].rows) EXPECT_EQ(row.radius, 7);
  server.reset();
  // A file that is not ours: logged, measured again, rewritten.
  std::ofstream(file_) << "not a calibration file\n";
  server = Start({7});
  ASSERT_NE(server, nullptr);
  ASSERT_EQ(server->auto_calibration().size(), 1u);
  EXPECT_EQ(server->auto_calibration()[0].source, "measured");
  sections = FileSections();
  ASSERT_EQ(sections.size(), 1u);
  EXPECT_FALSE(sections[0].rows.empty());
  ExpectNoValidationMessages(*server);
}

// The pipelines are created by one run of every candidate on all workers at
// once; where those runs fail (e.g. the workers' images at once do not fit
// a small GPU) the timing on worker 0 still measures everything.
TEST_F(CalibratedAuto, RunsThatFailOnOtherWorkersLeaveTheMeasurementWhole) {
  std::atomic<int> runs_elsewhere{0};
  service::EngineTestHooks hooks;
  hooks.before_run = [&](int worker) {
    if (worker == 0) return absl::OkStatus();
    ++runs_elsewhere;
    return absl::ResourceExhaustedError("injected: no memory for another worker (test)");
  };
  std::unique_ptr<service::Server> server = Start({3, 24}, std::move(hooks), /*workers=*/3);
  ASSERT_NE(server, nullptr);
  EXPECT_GT(runs_elsewhere.load(), 0) << "no candidate ran on another worker";
  ASSERT_EQ(server->auto_calibration().size(), 1u);
  EXPECT_EQ(server->auto_calibration()[0].source, "measured");
  const std::vector<service::CalibrationSection> sections = FileSections();
  ASSERT_EQ(sections.size(), 1u);
  std::set<int> radii;
  for (const service::CalibratedRow& row : sections[0].rows) radii.insert(row.radius);
  EXPECT_EQ(radii, (std::set<int>{3, 24}));
  ExpectNoValidationMessages(*server);
}

}  // namespace
}  // namespace rgfx::testing
