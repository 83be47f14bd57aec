// No Vulkan driver, no crash (issue 9): what a GPU container without the
// NVIDIA `graphics` driver capability looks like. The server must say what is
// missing and exit 1, and a Server whose Start fails part-way must be torn
// down without touching what it never built.
#include <cstdlib>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "service/server.h"
#include "tests/e2e/server_fixture.h"
#include "tests/e2e/subprocess.h"

namespace rgfx::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kNoDriver[] =
    "env VK_ICD_FILENAMES=/nonexistent/rgfx_icd.json VK_DRIVER_FILES=/nonexistent/rgfx_icd.json";

// The loader reads these variables at every vkCreateInstance, so a test can
// take the driver away for the length of one scope.
class NoDriverScope {
 public:
  NoDriverScope() {
    for (const char* name : {"VK_ICD_FILENAMES", "VK_DRIVER_FILES"}) {
      setenv(name, "/nonexistent/rgfx_icd.json", 1);
    }
  }
  ~NoDriverScope() {
    unsetenv("VK_ICD_FILENAMES");
    unsetenv("VK_DRIVER_FILES");
  }
};

void ExpectNamesWhatIsMissing(const std::string& message) {
  EXPECT_THAT(message, HasSubstr("no Vulkan driver"));
  EXPECT_THAT(message, HasSubstr("/nonexistent/rgfx_icd.json"));  // where it looked
  EXPECT_THAT(message, HasSubstr("NVIDIA_DRIVER_CAPABILITIES=compute,utility,graphics"));
  EXPECT_THAT(message, HasSubstr("vulkaninfo"));
  EXPECT_THAT(message, HasSubstr("icd.d"));
}

TEST(NoDriverTest, ServerBinaryExitsOneWithTheReason) {
  const CommandResult run = RunCommand(std::string(kNoDriver) + " " + RGFX_SERVER_BIN +
                                       " --listen=127.0.0.1:0");
  ASSERT_TRUE(run.exited) << "killed by signal " << run.signal << ":\n" << run.output;
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_THAT(run.output, HasSubstr("rgfx-server cannot start"));
  ExpectNamesWhatIsMissing(run.output);
  EXPECT_THAT(run.output, Not(HasSubstr("core dumped")));
}

TEST(NoDriverTest, ServerBinaryRefusesANegativeMallocArenaCount) {
  // Checked before anything else starts (the cap must precede every thread).
  const CommandResult run =
      RunCommand(std::string(RGFX_SERVER_BIN) + " --listen=127.0.0.1:0 --malloc_arenas=-1");
  ASSERT_TRUE(run.exited) << "killed by signal " << run.signal << ":\n" << run.output;
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_THAT(run.output, HasSubstr("--malloc_arenas must be >= 0"));
}

TEST(NoDriverTest, ServerBinaryExitsOneWithSeveralDevicesToo) {
  // --devices lists the devices before any engine: another path to the loader.
  const CommandResult run = RunCommand(std::string(kNoDriver) + " " + RGFX_SERVER_BIN +
                                       " --listen=127.0.0.1:0 --devices=all");
  ASSERT_TRUE(run.exited) << "killed by signal " << run.signal << ":\n" << run.output;
  EXPECT_EQ(run.exit_code, 1) << run.output;
  ExpectNamesWhatIsMissing(run.output);
}

TEST(NoDriverTest, FailedStartIsAnErrorNotACrash) {
  NoDriverScope no_driver;
  service::ServerOptions options = TestServerOptions();
  options.engine.validation = false;  // the layer is beside the point here
  absl::StatusOr<std::unique_ptr<service::Server>> server = service::Server::Start(options);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().code(), absl::StatusCode::kFailedPrecondition) << server.status();
  ExpectNamesWhatIsMissing(std::string(server.status().message()));
}

TEST(NoDriverTest, StartThatFailsAfterTheDevicesIsTornDownCleanly) {
  // The devices come up, then listening fails (an address that cannot be
  // bound): the partly built server is destroyed inside Start with engines
  // but no gRPC server, the shape that used to crash in ~Server.
  service::ServerOptions options = TestServerOptions();
  options.listen_address = "256.0.0.1:1";
  absl::StatusOr<std::unique_ptr<service::Server>> server = service::Server::Start(options);
  ASSERT_FALSE(server.ok());
  EXPECT_THAT(std::string(server.status().message()), HasSubstr("cannot listen on 256.0.0.1:1"));
}

TEST(NoDriverTest, BadTlsFileFailsBeforeTheDevice) {
  // Even with no driver, a flag error is reported as such (checked first).
  const CommandResult run = RunCommand(std::string(kNoDriver) + " " + RGFX_SERVER_BIN +
                                       " --listen=127.0.0.1:0 --tls_cert=/nonexistent/cert.pem"
                                       " --tls_key=/nonexistent/key.pem");
  ASSERT_TRUE(run.exited) << run.output;
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_THAT(run.output, HasSubstr("--tls_cert=/nonexistent/cert.pem: cannot read"));
}

}  // namespace
}  // namespace rgfx::testing
