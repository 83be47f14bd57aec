// Reading a server's /metrics in tests: a plain HTTP/1.0 GET over a socket
// (no HTTP library), and a parser of the Prometheus text format (version
// 0.0.4) into samples that tests look up by name and labels.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace rgfx::testing {

// The body of GET `path` on 127.0.0.1:`port`; an error unless the status
// line says 200.
absl::StatusOr<std::string> HttpGet(int port, const std::string& path);

struct MetricSample {
  std::string name;                           // "rgfx_requests_total"
  std::map<std::string, std::string> labels;  // {"code": "OK", "method": "Process"}
  double value = 0;
};

// Every sample line ("# HELP"/"# TYPE" comments skipped); an error naming
// the line that is not `name{label="value",...} number`.
absl::StatusOr<std::vector<MetricSample>> ParsePrometheusText(const std::string& text);

class Scrape {
 public:
  explicit Scrape(std::vector<MetricSample> samples) : samples_(std::move(samples)) {}
  // The sum over samples named `name` whose labels include all of `labels`
  // (0 when there is none).
  double Sum(const std::string& name, const std::map<std::string, std::string>& labels = {}) const;
  // Whether any sample has that name.
  bool Has(const std::string& name) const;
  const std::vector<MetricSample>& samples() const { return samples_; }

 private:
  std::vector<MetricSample> samples_;
};

// HttpGet + ParsePrometheusText of /metrics.
absl::StatusOr<Scrape> ScrapeMetrics(int port);

}  // namespace rgfx::testing
