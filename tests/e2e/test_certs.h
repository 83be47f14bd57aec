// Certificates for TLS tests, made at test time with the `openssl` command
// (scripts/setup installs it): two independent CAs, a server certificate for
// localhost and 127.0.0.1, and client certificates signed by each CA.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace rgfx::testing {

struct TestCerts {
  std::string dir;
  std::string ca_cert;            // CA "A": signs the server and the good client
  std::string other_ca_cert;      // CA "B": trusted by no one
  std::string server_cert, server_key;
  std::string client_cert, client_key;              // signed by A
  std::string other_client_cert, other_client_key;  // signed by B
};

// Writes them under a new temporary directory.
absl::StatusOr<TestCerts> MakeTestCerts();

}  // namespace rgfx::testing
