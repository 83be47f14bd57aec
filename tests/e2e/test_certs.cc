#include "tests/e2e/test_certs.h"

#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "tests/e2e/subprocess.h"

namespace rgfx::testing {
namespace {

absl::Status Run(const std::string& command) {
  const CommandResult result = RunCommand(command);
  if (result.exited && result.exit_code == 0) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("`", command, "` failed: ", result.output));
}

// A P-256 key and a certificate for it signed by `ca` (self-signed when
// `ca` is empty), with the given subject and extensions.
absl::Status MakeCert(const std::string& dir, const std::string& name, const std::string& subject,
                      const std::string& ca, const std::string& extensions) {
  const std::string base = absl::StrCat(dir, "/", name);
  const std::string ext_file = base + ".ext";
  std::ofstream(ext_file) << extensions << "\n";
  if (ca.empty()) {
    return Run(absl::StrCat("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 "
                            "-nodes -days 2 -subj ", ShellQuote(subject), " -keyout ", base,
                            ".key -out ", base, ".crt -extensions ext -config ", ext_file));
  }
  if (absl::Status s = Run(absl::StrCat(
          "openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj ",
          ShellQuote(subject), " -keyout ", base, ".key -out ", base, ".csr"));
      !s.ok()) {
    return s;
  }
  return Run(absl::StrCat("openssl x509 -req -days 2 -in ", base, ".csr -CA ", dir, "/", ca,
                          ".crt -CAkey ", dir, "/", ca, ".key -set_serial ", std::rand() % 100000 + 2,
                          " -out ", base, ".crt -extfile ", ext_file));
}

}  // namespace

absl::StatusOr<TestCerts> MakeTestCerts() {
  char pattern[] = "/tmp/rgfx-certs-XXXXXX";
  if (mkdtemp(pattern) == nullptr) return absl::InternalError("mkdtemp failed");
  TestCerts c;
  c.dir = pattern;
  // `openssl req -x509` reads its extensions from a config section.
  const std::string ca_ext =
      "[req]\ndistinguished_name=dn\n[dn]\n[ext]\nbasicConstraints=critical,CA:TRUE\n"
      "keyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash";
  const std::string server_ext =
      "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n"
      "extendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1";
  const std::string client_ext =
      "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth";
  for (absl::Status s : {MakeCert(c.dir, "ca", "/CN=rgfx test CA A", "", ca_ext),
                         MakeCert(c.dir, "other_ca", "/CN=rgfx test CA B", "", ca_ext),
                         MakeCert(c.dir, "server", "/CN=localhost", "ca", server_ext),
                         MakeCert(c.dir, "client", "/CN=rgfx test client", "ca", client_ext),
                         MakeCert(c.dir, "other_client", "/CN=rgfx stranger", "other_ca",
                                  client_ext)}) {
    if (!s.ok()) return s;
  }
  c.ca_cert = c.dir + "/ca.crt";
  c.other_ca_cert = c.dir + "/other_ca.crt";
  c.server_cert = c.dir + "/server.crt";
  c.server_key = c.dir + "/server.key";
  c.client_cert = c.dir + "/client.crt";
  c.client_key = c.dir + "/client.key";
  c.other_client_cert = c.dir + "/other_client.crt";
  c.other_client_key = c.dir + "/other_client.key";
  return c;
}

}  // namespace rgfx::testing
