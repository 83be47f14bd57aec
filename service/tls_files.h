// The server's TLS files (--tls_cert, --tls_key, --tls_client_ca), read and
// checked before gRPC sees them: gRPC reports a bad PEM file or a key that
// does not belong to the certificate only in its own log, at the first
// handshake or as a bare failure to listen; here it fails startup with a
// message naming the file and what is wrong with it.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace rgfx::service {

// PEM file paths. No cert and key: plaintext. client_ca_file set: mutual
// TLS, every client must present a certificate signed by one of its CAs.
struct TlsOptions {
  std::string cert_file;
  std::string key_file;
  std::string client_ca_file;

  bool enabled() const { return !cert_file.empty() || !key_file.empty(); }
};

// The files' contents, checked: the certificate chain and the key parse, the
// key is the certificate's, the client CA file holds at least one
// certificate.
struct TlsMaterial {
  std::string cert_chain_pem;
  std::string private_key_pem;
  std::string client_ca_pem;  // empty: no client certificates asked for
};

absl::StatusOr<TlsMaterial> LoadTlsFiles(const TlsOptions& options);

}  // namespace rgfx::service
