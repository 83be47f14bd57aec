// The one place the `rgfx` client opens a channel to rgfx-server: plaintext,
// TLS (--tls_ca: the roots that sign the server's certificate) or mutual TLS
// (--tls_cert/--tls_key: the client's own certificate). Every subcommand
// (process, passes, info, health, bench, load) goes through it.
#pragma once

#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"

namespace rgfx::client {

struct ChannelOptions {
  std::string address;          // host:port, or unix:PATH
  std::string tls_ca_file;      // PEM roots; set: TLS (empty: plaintext)
  std::string tls_cert_file;    // PEM client certificate chain (mutual TLS), with the key
  std::string tls_key_file;     // PEM private key of tls_cert_file
  std::string tls_server_name;  // name checked against the server's certificate (default: host)
};

// Checks the options and reads the files: a missing or empty file, a
// certificate without its key, or client TLS options without --tls_ca are
// INVALID_ARGUMENT naming the flag. Messages of any size are allowed (the
// server sets the limits). No connection is made yet.
absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(
    const ChannelOptions& options, grpc::ChannelArguments args = grpc::ChannelArguments());

}  // namespace rgfx::client
