#include "tests/soak/soak_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <regex>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace rgfx::soak {

absl::StatusOr<std::unique_ptr<ServerProcess>> ServerProcess::Start(
    const std::string& binary, const std::vector<std::string>& args, const std::string& log_path) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return absl::InternalError("pipe failed");
  std::vector<std::string> argv_s = {binary, "--listen=127.0.0.1:0", "--log_format=json"};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  const pid_t pid = fork();
  if (pid < 0) return absl::InternalError("fork failed");
  if (pid == 0) {
    dup2(pipe_fds[1], STDERR_FILENO);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    std::vector<char*> argv;
    for (std::string& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    std::fprintf(stderr, "cannot run %s: %s\n", binary.c_str(), std::strerror(errno));
    _exit(127);
  }
  close(pipe_fds[1]);
  auto server = std::unique_ptr<ServerProcess>(new ServerProcess);
  server->pid_ = pid;
  server->log_fd_ = pipe_fds[0];
  auto port = std::make_shared<std::promise<int>>();
  std::future<int> port_future = port->get_future();
  // Copies the log and reports the port from the "serving" line (or 0 at EOF).
  server->log_copier_ = std::thread([fd = pipe_fds[0], log_path, port] {
    std::ofstream log(log_path, std::ios::trunc);
    FILE* in = fdopen(fd, "r");
    char* line = nullptr;
    size_t cap = 0;
    bool reported = false;
    static const std::regex kPort("\"msg\":\"serving\".*\"port\":([0-9]+)");
    while (getline(&line, &cap, in) > 0) {
      log << line << std::flush;
      std::cmatch m;
      if (!reported && std::regex_search(line, m, kPort)) {
        port->set_value(std::stoi(m[1].str()));
        reported = true;
      }
    }
    free(line);
    fclose(in);
    if (!reported) port->set_value(0);
  });
  if (port_future.wait_for(std::chrono::seconds(120)) != std::future_status::ready) {
    server->Stop();
    return absl::DeadlineExceededError("the server did not say it was serving within 120 s");
  }
  server->port_ = port_future.get();
  if (server->port_ == 0) {
    server->Stop();
    return absl::UnavailableError(absl::StrCat("the server exited before serving; see ", log_path));
  }
  return server;
}

int ServerProcess::Stop() {
  int status = -1;
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  if (log_copier_.joinable()) log_copier_.join();
  return status;
}

ServerProcess::~ServerProcess() { Stop(); }

bool ServerHasFlag(const std::string& binary, const std::string& flag) {
  const std::string command = absl::StrCat("'", binary, "' --helpfull 2>&1");
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return false;
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, n);
  pclose(p);
  return absl::StrContains(text, absl::StrCat("-", flag, " "));
}

int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  return port;
}

int64_t ResidentKib(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (absl::StartsWith(line, "VmRSS:")) {
      int64_t kib = -1;
      std::vector<std::string> parts = absl::StrSplit(line, ' ', absl::SkipEmpty());
      if (parts.size() >= 2 && absl::SimpleAtoi(parts[1], &kib)) return kib;
    }
  }
  return -1;
}

int OpenFds(pid_t pid) {
  std::error_code ec;
  int n = 0;
  for (auto it = std::filesystem::directory_iterator(absl::StrCat("/proc/", pid, "/fd"), ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++n;
  }
  return ec ? -1 : n;
}

absl::StatusOr<double> ScrapeMetric(const std::string& address, const std::string& metric) {
  const size_t colon = address.rfind(':');
  int port = 0;
  if (colon == std::string::npos || !absl::SimpleAtoi(address.substr(colon + 1), &port)) {
    return absl::InvalidArgumentError(absl::StrCat("bad metrics address ", address));
  }
  std::string host = address.substr(0, colon);
  if (host.empty() || host == "0.0.0.0" || host == "localhost") host = "127.0.0.1";
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  timeval tv{.tv_sec = 5, .tv_usec = 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, host.c_str(), &addr.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return absl::UnavailableError(absl::StrCat("nothing listens on ", address, " for /metrics"));
  }
  const std::string request =
      absl::StrCat("GET /metrics HTTP/1.0\r\nHost: ", host, "\r\nConnection: close\r\n\r\n");
  (void)!write(fd, request.data(), request.size());
  std::string response;
  char buf[8192];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) response.append(buf, static_cast<size_t>(n));
  close(fd);
  bool found = false;
  double sum = 0;
  for (absl::string_view line : absl::StrSplit(response, '\n')) {
    if (!absl::StartsWith(line, metric)) continue;
    const absl::string_view rest = line.substr(metric.size());
    if (!rest.empty() && rest[0] != ' ' && rest[0] != '{') continue;  // a longer name
    const size_t space = line.rfind(' ');
    double v = 0;
    if (space != absl::string_view::npos && absl::SimpleAtod(line.substr(space + 1), &v)) {
      sum += v;
      found = true;
    }
  }
  if (!found) {
    return absl::NotFoundError(absl::StrCat("/metrics on ", address, " has no ", metric));
  }
  return sum;
}

}  // namespace rgfx::soak
