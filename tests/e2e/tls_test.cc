// TLS and mutual TLS end to end (issue 9), with certificates made by the
// test (tests/e2e/test_certs.h): two in-process servers (TLS; mutual TLS)
// reached through client/channel.h, the same code as the `rgfx` command, and
// the built rgfx and rgfx-server binaries for their flags. Also: server
// reflection is off unless asked for.
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <string>

#include <gmock/gmock.h>
#include <grpcpp/generic/generic_stub.h>
#include <gtest/gtest.h>

#include "client/channel.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "service/server.h"
#include "service/tls_files.h"
#include "tests/e2e/server_fixture.h"
#include "tests/e2e/subprocess.h"
#include "tests/e2e/test_certs.h"

namespace rgfx::testing {
namespace {

using ::testing::HasSubstr;

class TlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    absl::StatusOr<TestCerts> certs = MakeTestCerts();
    ASSERT_TRUE(certs.ok()) << certs.status();
    certs_ = new TestCerts(*certs);
    service::ServerOptions options = TestServerOptions();
    options.tls = {.cert_file = certs_->server_cert, .key_file = certs_->server_key};
    absl::StatusOr<std::unique_ptr<service::Server>> tls = service::Server::Start(options);
    ASSERT_TRUE(tls.ok()) << tls.status();
    tls_server_ = tls->release();
    options.tls.client_ca_file = certs_->ca_cert;
    options.reflection = true;  // one of each, for ReflectionIsOptIn
    absl::StatusOr<std::unique_ptr<service::Server>> mtls = service::Server::Start(options);
    ASSERT_TRUE(mtls.ok()) << mtls.status();
    mtls_server_ = mtls->release();
  }

  static void TearDownTestSuite() {
    delete tls_server_;
    delete mtls_server_;
    if (certs_ != nullptr) std::filesystem::remove_all(certs_->dir);
    delete certs_;
  }

  void TearDown() override {
    for (service::Server* server : {tls_server_, mtls_server_}) {
      if (server == nullptr) continue;
      for (const std::string& message : server->engine().TakeValidationMessages()) {
        ADD_FAILURE() << "Vulkan validation: " << message;
      }
    }
  }

  static std::string Address(const service::Server& server) {
    return "127.0.0.1:" + std::to_string(const_cast<service::Server&>(server).port());
  }

  // A fresh connection per channel, so one test's handshake is not another's.
  static std::shared_ptr<grpc::Channel> Channel(const client::ChannelOptions& options) {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = client::MakeChannel(options, args);
    EXPECT_TRUE(channel.ok()) << channel.status();
    return channel.ok() ? *channel : nullptr;
  }

  static grpc::Status Health(const std::shared_ptr<grpc::Channel>& channel) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    grpc::health::v1::HealthCheckRequest request;
    request.set_service("rgfx.v1.PostProcess");
    grpc::health::v1::HealthCheckResponse response;
    grpc::Status status =
        grpc::health::v1::Health::NewStub(channel)->Check(&context, request, &response);
    if (status.ok()) {
      EXPECT_EQ(response.status(), grpc::health::v1::HealthCheckResponse::SERVING);
    }
    return status;
  }

  static grpc::Status Blur(const std::shared_ptr<grpc::Channel>& channel) {
    v1::ProcessRequest request = RequestFromJson(ReadExampleGraph("blur.json"), SamplePng(64, 48));
    v1::ProcessResponse response;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(120));
    grpc::Status status = v1::PostProcess::NewStub(channel)->Process(&context, request, &response);
    if (status.ok()) {
      EXPECT_EQ(response.outputs_size(), 1);
      if (response.outputs_size() == 1) {
        EXPECT_EQ(response.outputs(0).width(), 64u);
      }
    }
    return status;
  }

  static TestCerts* certs_;
  static service::Server* tls_server_;
  static service::Server* mtls_server_;
};

TestCerts* TlsTest::certs_ = nullptr;
service::Server* TlsTest::tls_server_ = nullptr;
service::Server* TlsTest::mtls_server_ = nullptr;

TEST_F(TlsTest, ProcessOverTls) {
  auto channel = Channel({.address = Address(*tls_server_), .tls_ca_file = certs_->ca_cert});
  EXPECT_TRUE(Health(channel).ok());
  grpc::Status status = Blur(channel);
  EXPECT_TRUE(status.ok()) << status.error_code() << ": " << status.error_message();
}

TEST_F(TlsTest, ServerNameOverrideAndLocalhost) {
  // The certificate names localhost and 127.0.0.1; the override checks it
  // against a name, the address by its host name.
  EXPECT_TRUE(Health(Channel({.address = Address(*tls_server_),
                              .tls_ca_file = certs_->ca_cert,
                              .tls_server_name = "localhost"}))
                  .ok());
  EXPECT_TRUE(Health(Channel({.address = "localhost:" + std::to_string(tls_server_->port()),
                              .tls_ca_file = certs_->ca_cert}))
                  .ok());
  // A name the certificate does not carry is refused.
  grpc::Status wrong = Health(Channel({.address = Address(*tls_server_),
                                       .tls_ca_file = certs_->ca_cert,
                                       .tls_server_name = "rgfx.example.com"}));
  EXPECT_EQ(wrong.error_code(), grpc::StatusCode::UNAVAILABLE) << wrong.error_message();
}

TEST_F(TlsTest, PlaintextClientIsRefused) {
  for (service::Server* server : {tls_server_, mtls_server_}) {
    grpc::Status status = Health(Channel({.address = Address(*server)}));
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
  }
}

TEST_F(TlsTest, ClientTrustingAnotherCaIsRefused) {
  grpc::Status status =
      Health(Channel({.address = Address(*tls_server_), .tls_ca_file = certs_->other_ca_cert}));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
}

TEST_F(TlsTest, ProcessOverMutualTls) {
  auto channel = Channel({.address = Address(*mtls_server_),
                          .tls_ca_file = certs_->ca_cert,
                          .tls_cert_file = certs_->client_cert,
                          .tls_key_file = certs_->client_key});
  EXPECT_TRUE(Health(channel).ok());
  grpc::Status status = Blur(channel);
  EXPECT_TRUE(status.ok()) << status.error_code() << ": " << status.error_message();
}

TEST_F(TlsTest, MutualTlsRefusesClientWithoutCertificate) {
  auto channel = Channel({.address = Address(*mtls_server_), .tls_ca_file = certs_->ca_cert});
  grpc::Status status = Health(channel);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
  status = Blur(channel);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
}

TEST_F(TlsTest, MutualTlsRefusesCertificateOfAnotherCa) {
  grpc::Status status = Health(Channel({.address = Address(*mtls_server_),
                                        .tls_ca_file = certs_->ca_cert,
                                        .tls_cert_file = certs_->other_client_cert,
                                        .tls_key_file = certs_->other_client_key}));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
}

// Calls ServerReflectionInfo as a unary call asking for the service list: a
// server without reflection answers UNIMPLEMENTED.
grpc::Status CallReflection(const std::shared_ptr<grpc::Channel>& channel) {
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  // ServerReflectionRequest{list_services: ""}: field 7, length-delimited, empty.
  grpc::Slice list_services(std::string("\x3a\x00", 2));
  grpc::ByteBuffer request(&list_services, 1), response;
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
                 grpc::StubOptions(), &request, &response,
                 [&done](grpc::Status status) { done.set_value(status); });
  return done.get_future().get();
}

TEST_F(TlsTest, ReflectionIsOptIn) {
  grpc::Status off = CallReflection(
      Channel({.address = Address(*tls_server_), .tls_ca_file = certs_->ca_cert}));
  EXPECT_EQ(off.error_code(), grpc::StatusCode::UNIMPLEMENTED) << off.error_message();
  grpc::Status on = CallReflection(Channel({.address = Address(*mtls_server_),
                                            .tls_ca_file = certs_->ca_cert,
                                            .tls_cert_file = certs_->client_cert,
                                            .tls_key_file = certs_->client_key}));
  EXPECT_TRUE(on.ok()) << on.error_code() << ": " << on.error_message();
}

TEST_F(TlsTest, ClientChannelOptionErrors) {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> no_ca =
      client::MakeChannel({.address = "127.0.0.1:1", .tls_cert_file = certs_->client_cert,
                           .tls_key_file = certs_->client_key});
  EXPECT_THAT(std::string(no_ca.status().message()), HasSubstr("need --tls_ca"));
  absl::StatusOr<std::shared_ptr<grpc::Channel>> no_key = client::MakeChannel(
      {.address = "127.0.0.1:1", .tls_ca_file = certs_->ca_cert, .tls_cert_file = certs_->client_cert});
  EXPECT_THAT(std::string(no_key.status().message()), HasSubstr("go together"));
  absl::StatusOr<std::shared_ptr<grpc::Channel>> missing =
      client::MakeChannel({.address = "127.0.0.1:1", .tls_ca_file = "/nonexistent/ca.pem"});
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("/nonexistent/ca.pem: cannot read"));
}

TEST_F(TlsTest, ServerTlsFileErrors) {
  using service::LoadTlsFiles;
  auto message = [](const service::TlsOptions& options) {
    absl::StatusOr<service::TlsMaterial> material = LoadTlsFiles(options);
    EXPECT_FALSE(material.ok());
    EXPECT_EQ(material.status().code(), absl::StatusCode::kInvalidArgument);
    return std::string(material.status().message());
  };
  EXPECT_THAT(message({.cert_file = certs_->server_cert}), HasSubstr("both"));
  EXPECT_THAT(message({.client_ca_file = certs_->ca_cert}), HasSubstr("--tls_client_ca needs"));
  EXPECT_THAT(message({.cert_file = certs_->server_cert, .key_file = certs_->client_key}),
              HasSubstr("is not the private key of --tls_cert"));
  EXPECT_THAT(message({.cert_file = certs_->server_key, .key_file = certs_->server_key}),
              HasSubstr("no PEM certificate"));
  EXPECT_THAT(message({.cert_file = certs_->server_cert, .key_file = certs_->server_cert}),
              HasSubstr("no unencrypted PEM private key"));
  EXPECT_THAT(message({.cert_file = certs_->server_cert, .key_file = certs_->server_key,
                       .client_ca_file = "/nonexistent/ca.pem"}),
              HasSubstr("--tls_client_ca=/nonexistent/ca.pem: cannot read"));
  EXPECT_TRUE(LoadTlsFiles({.cert_file = certs_->server_cert, .key_file = certs_->server_key,
                            .client_ca_file = certs_->ca_cert})
                  .ok());
}

TEST_F(TlsTest, ServerBinaryRefusesKeyOfAnotherCertificate) {
  const CommandResult run = RunCommand(
      std::string(RGFX_SERVER_BIN) + " --listen=127.0.0.1:0 --tls_cert=" + certs_->server_cert +
      " --tls_key=" + certs_->client_key);
  ASSERT_TRUE(run.exited) << run.output;
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_THAT(run.output, HasSubstr("is not the private key of --tls_cert"));
}

TEST_F(TlsTest, ClientBinaryFlags) {
  const std::string rgfx = RGFX_CLIENT_BIN;
  const std::string mtls = " --server=" + Address(*mtls_server_) + " --tls_ca=" + certs_->ca_cert;
  const std::string cert = " --tls_cert=" + certs_->client_cert + " --tls_key=" + certs_->client_key;

  CommandResult health = RunCommand(rgfx + " health" + mtls + cert);
  EXPECT_TRUE(health.exited && health.exit_code == 0) << health.output;
  EXPECT_THAT(health.output, HasSubstr("SERVING"));

  CommandResult refused = RunCommand(rgfx + " health --timeout=10" + mtls);
  EXPECT_TRUE(refused.exited && refused.exit_code == 1) << refused.output;
  EXPECT_THAT(refused.output, HasSubstr("rgfx: error"));

  const std::string png = certs_->dir + "/in.png";
  const std::string out = certs_->dir + "/out.png";
  {
    std::ofstream file(png, std::ios::binary);
    file << SamplePng(32, 32);
  }
  CommandResult process =
      RunCommand(rgfx + " process" + mtls + cert + " --graph=" + RGFX_SOURCE_DIR +
                 "/examples/graphs/blur.json " + png + " -o " + out);
  EXPECT_TRUE(process.exited && process.exit_code == 0) << process.output;
  EXPECT_TRUE(std::filesystem::exists(out)) << process.output;

  CommandResult passes = RunCommand(rgfx + " passes --json --server=" + Address(*tls_server_) +
                                    " --tls_ca=" + certs_->ca_cert);
  EXPECT_TRUE(passes.exited && passes.exit_code == 0) << passes.output;
  EXPECT_THAT(passes.output, HasSubstr("gaussian_blur"));

  CommandResult bad = RunCommand(rgfx + " info --server=" + Address(*tls_server_) + cert);
  EXPECT_TRUE(bad.exited && bad.exit_code == 1) << bad.output;
  EXPECT_THAT(bad.output, HasSubstr("need --tls_ca"));
}

}  // namespace
}  // namespace rgfx::testing
