// The server the soak drives: an rgfx-server process it starts on a free port
// (or one given by address), and what can be read of it from outside:
// /proc/PID/status VmRSS, /proc/PID/fd, and the rgfx_gpu_memory_bytes gauge
// on its Prometheus endpoint when it has one.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"

namespace rgfx::soak {

class ServerProcess {
 public:
  // Starts `binary` with --listen=127.0.0.1:0 --log_format=json and `args`,
  // its log (stderr) copied to `log_path`; returns once it logs "serving".
  static absl::StatusOr<std::unique_ptr<ServerProcess>> Start(const std::string& binary,
                                                              const std::vector<std::string>& args,
                                                              const std::string& log_path);
  ~ServerProcess();

  pid_t pid() const { return pid_; }
  int port() const { return port_; }
  // SIGTERM, then waits; the exit status as waitpid gives it.
  int Stop();

 private:
  ServerProcess() = default;
  pid_t pid_ = -1;
  int port_ = 0;
  int log_fd_ = -1;
  std::thread log_copier_;
};

// True when `binary --helpfull` lists `flag`.
bool ServerHasFlag(const std::string& binary, const std::string& flag);

// A TCP port free on 127.0.0.1 now.
int FreePort();

// VmRSS in KiB, or -1 when the process cannot be read.
int64_t ResidentKib(pid_t pid);
// Open descriptors, or -1.
int OpenFds(pid_t pid);

// GET http://`address`/metrics and the sum of the samples of `metric` (all
// label sets); an error says why (no endpoint, no such metric).
absl::StatusOr<double> ScrapeMetric(const std::string& address, const std::string& metric);

}  // namespace rgfx::soak
