#include "tests/e2e/prometheus_text.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/ascii.h"

namespace rgfx::testing {

absl::StatusOr<std::string> HttpGet(int port, const std::string& path) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return absl::InternalError("socket() failed");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd);
    return absl::UnavailableError(absl::StrCat("cannot connect to 127.0.0.1:", port));
  }
  const std::string request =
      absl::StrCat("GET ", path, " HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  size_t written = 0;
  while (written < request.size()) {
    const ssize_t n = write(fd, request.data() + written, request.size() - written);
    if (n <= 0) {
      close(fd);
      return absl::UnavailableError("write failed");
    }
    written += static_cast<size_t>(n);
  }
  std::string response;
  char buffer[16384];
  for (ssize_t n; (n = read(fd, buffer, sizeof(buffer))) > 0;) response.append(buffer, n);
  close(fd);
  const size_t body = response.find("\r\n\r\n");
  if (body == std::string::npos) return absl::DataLossError("no end of HTTP headers");
  const std::string status_line = response.substr(0, response.find("\r\n"));
  if (!absl::StrContains(status_line, " 200")) {
    return absl::UnavailableError(absl::StrCat("HTTP status: ", status_line));
  }
  return response.substr(body + 4);
}

absl::StatusOr<std::vector<MetricSample>> ParsePrometheusText(const std::string& text) {
  std::vector<MetricSample> samples;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    if (absl::StartsWith(line, "#")) continue;
    auto bad = [&] { return absl::InvalidArgumentError(absl::StrCat("bad line: ", line)); };
    MetricSample sample;
    size_t i = line.find_first_of("{ ");
    if (i == absl::string_view::npos || i == 0) return bad();
    sample.name = std::string(line.substr(0, i));
    if (line[i] == '{') {
      ++i;
      while (i < line.size() && line[i] != '}') {
        const size_t eq = line.find("=\"", i);
        if (eq == absl::string_view::npos) return bad();
        const std::string key(line.substr(i, eq - i));
        std::string value;
        size_t j = eq + 2;
        for (; j < line.size() && line[j] != '"'; ++j) {
          if (line[j] == '\\' && j + 1 < line.size()) {
            ++j;
            value += line[j] == 'n' ? '\n' : line[j];
          } else {
            value += line[j];
          }
        }
        if (j >= line.size()) return bad();
        sample.labels[key] = value;
        i = j + 1;
        if (i < line.size() && line[i] == ',') ++i;
      }
      if (i >= line.size()) return bad();
      ++i;  // '}'
    }
    const absl::string_view rest = absl::StripAsciiWhitespace(line.substr(i));
    // The value, then an optional timestamp.
    const absl::string_view number = rest.substr(0, rest.find(' '));
    if (number == "Nan" || number == "NaN") {
      sample.value = std::nan("");
    } else if (number == "+Inf") {
      sample.value = HUGE_VAL;
    } else if (!absl::SimpleAtod(number, &sample.value)) {
      return bad();
    }
    samples.push_back(std::move(sample));
  }
  return samples;
}

double Scrape::Sum(const std::string& name,
                   const std::map<std::string, std::string>& labels) const {
  double sum = 0;
  for (const MetricSample& s : samples_) {
    if (s.name != name) continue;
    bool match = true;
    for (const auto& [key, value] : labels) {
      auto it = s.labels.find(key);
      match = match && it != s.labels.end() && it->second == value;
    }
    if (match) sum += s.value;
  }
  return sum;
}

bool Scrape::Has(const std::string& name) const {
  for (const MetricSample& s : samples_) {
    if (s.name == name) return true;
  }
  return false;
}

absl::StatusOr<Scrape> ScrapeMetrics(int port) {
  absl::StatusOr<std::string> body = HttpGet(port, "/metrics");
  if (!body.ok()) return body.status();
  absl::StatusOr<std::vector<MetricSample>> samples = ParsePrometheusText(*body);
  if (!samples.ok()) return samples.status();
  return Scrape(*std::move(samples));
}

}  // namespace rgfx::testing
