#include "client/channel.h"

#include <fstream>
#include <sstream>

#include <grpcpp/security/credentials.h>

#include "absl/strings/str_cat.h"

namespace rgfx::client {
namespace {

absl::StatusOr<std::string> ReadPem(const std::string& flag, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(absl::StrCat("--", flag, "=", path, ": cannot read"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (buffer.str().find("-----BEGIN ") == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag, "=", path, ": not a PEM file"));
  }
  return buffer.str();
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(const ChannelOptions& options,
                                                           grpc::ChannelArguments args) {
  if (options.address.empty()) return absl::InvalidArgumentError("--server: empty address");
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  const bool client_cert = !options.tls_cert_file.empty() || !options.tls_key_file.empty();
  if (options.tls_ca_file.empty()) {
    if (client_cert || !options.tls_server_name.empty()) {
      return absl::InvalidArgumentError(
          "--tls_cert, --tls_key and --tls_server_name need --tls_ca (the CA certificates "
          "that signed the server's certificate), which turns TLS on");
    }
    return grpc::CreateCustomChannel(options.address, grpc::InsecureChannelCredentials(), args);
  }
  if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
    return absl::InvalidArgumentError(
        "--tls_cert and --tls_key go together (the client certificate for mutual TLS)");
  }
  grpc::SslCredentialsOptions ssl;
  absl::StatusOr<std::string> roots = ReadPem("tls_ca", options.tls_ca_file);
  if (!roots.ok()) return roots.status();
  ssl.pem_root_certs = *std::move(roots);
  if (client_cert) {
    absl::StatusOr<std::string> cert = ReadPem("tls_cert", options.tls_cert_file);
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key = ReadPem("tls_key", options.tls_key_file);
    if (!key.ok()) return key.status();
    ssl.pem_cert_chain = *std::move(cert);
    ssl.pem_private_key = *std::move(key);
  }
  if (!options.tls_server_name.empty()) {
    args.SetSslTargetNameOverride(options.tls_server_name);
  }
  return grpc::CreateCustomChannel(options.address, grpc::SslCredentials(ssl), args);
}

}  // namespace rgfx::client
