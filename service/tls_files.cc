#include "service/tls_files.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace rgfx::service {
namespace {

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct KeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using Bio = std::unique_ptr<BIO, BioFree>;

Bio MemoryBio(const std::string& pem) {
  return Bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

// OpenSSL's reason for the last failure, then its queue cleared (it is per
// thread and would otherwise show up in an unrelated later error).
std::string OpenSslReason() {
  const unsigned long code = ERR_peek_last_error();
  const char* text = code == 0 ? nullptr : ERR_reason_error_string(code);
  std::string reason = text != nullptr ? text : "not PEM";
  ERR_clear_error();
  return reason;
}

absl::StatusOr<std::string> ReadPemFile(const std::string& flag, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag, "=", path, ": cannot read the file"));
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (buffer.str().empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag, "=", path, ": the file is empty"));
  }
  return buffer.str();
}

// Parses every certificate of `pem`; the first is returned (the leaf of a
// chain). At least one is required.
absl::StatusOr<std::unique_ptr<X509, X509Free>> ParseCertificates(const std::string& flag,
                                                                   const std::string& path,
                                                                   const std::string& pem) {
  Bio bio = MemoryBio(pem);
  std::unique_ptr<X509, X509Free> first(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (first == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--", flag, "=", path, ": no PEM certificate in the file (", OpenSslReason(), ")"));
  }
  ERR_clear_error();
  return first;
}

}  // namespace

absl::StatusOr<TlsMaterial> LoadTlsFiles(const TlsOptions& options) {
  if (options.cert_file.empty() != options.key_file.empty()) {
    return absl::InvalidArgumentError(
        "--tls_cert and --tls_key go together: give both (TLS) or neither (plaintext)");
  }
  if (!options.enabled()) {
    if (!options.client_ca_file.empty()) {
      return absl::InvalidArgumentError(
          "--tls_client_ca needs --tls_cert and --tls_key: client certificates are checked "
          "only over TLS");
    }
    return TlsMaterial{};
  }
  TlsMaterial material;
  absl::StatusOr<std::string> cert = ReadPemFile("tls_cert", options.cert_file);
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadPemFile("tls_key", options.key_file);
  if (!key.ok()) return key.status();
  absl::StatusOr<std::unique_ptr<X509, X509Free>> leaf =
      ParseCertificates("tls_cert", options.cert_file, *cert);
  if (!leaf.ok()) return leaf.status();
  Bio key_bio = MemoryBio(*key);
  std::unique_ptr<EVP_PKEY, KeyFree> pkey(
      PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr));
  if (pkey == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("--tls_key=", options.key_file,
                                                   ": no unencrypted PEM private key in the file (",
                                                   OpenSslReason(), ")"));
  }
  if (X509_check_private_key(leaf->get(), pkey.get()) != 1) {
    ERR_clear_error();
    return absl::InvalidArgumentError(absl::StrCat("--tls_key=", options.key_file,
                                                   " is not the private key of --tls_cert=",
                                                   options.cert_file));
  }
  material.cert_chain_pem = *std::move(cert);
  material.private_key_pem = *std::move(key);
  if (!options.client_ca_file.empty()) {
    absl::StatusOr<std::string> ca = ReadPemFile("tls_client_ca", options.client_ca_file);
    if (!ca.ok()) return ca.status();
    absl::StatusOr<std::unique_ptr<X509, X509Free>> first =
        ParseCertificates("tls_client_ca", options.client_ca_file, *ca);
    if (!first.ok()) return first.status();
    material.client_ca_pem = *std::move(ca);
  }
  return material;
}

}  // namespace rgfx::service
