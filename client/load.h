// `rgfx load`: the service's throughput and latency under load (DESIGN.md
// §7), measured with the project's own client, in the manner of ghz:
//
// - closed loop (default): `concurrency` callers, each with one request in
//   flight, sending the next as soon as the last is answered;
// - open loop (`rps` > 0): requests are due at fixed times (k / rps after the
//   start), taken by up to `concurrency` callers; a request's latency runs
//   from when it was due, not from when a free caller sent it, so a server
//   that falls behind shows its queueing in the latency;
// - requests rotate over a set (one per image); callers are spread over
//   `connections` channels (separate HTTP/2 connections);
// - the first `warmup_requests` answers, or those due in the first
//   `warmup_seconds`, are left out of every statistic;
// - bounded by a count and a duration, and by failure: a server that
//   refuses connections makes callers back off exponentially, and the run
//   stops once no call has succeeded for `give_up_seconds` while calls fail
//   UNAVAILABLE, or after `max_errors` errors.
//
// The report (client/load_report.h) has count, rate, a latency histogram and
// percentiles, status codes by name, and the server's stage and per-pass GPU
// times aggregated from the responses.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "client/load_call.h"
#include "rgfx/v1/post_process.pb.h"

namespace rgfx::client {

struct LoadOptions {
  int concurrency = 8;         // callers; with rps, the most requests in flight
  int64_t requests = 200;      // requests to send in all, warm-up included; 0: no bound
  double duration_seconds = 60;  // stop sending after this long; 0: no bound
  double rps = 0;              // open loop at this total rate; 0: closed loop
  int connections = 1;         // channels the callers are spread over
  int64_t warmup_requests = 0;   // first answers left out of the statistics
  double warmup_seconds = 0;     // answers to requests due this early left out
  double timeout_seconds = 120;  // deadline of each request
  int64_t max_errors = 0;        // stop after this many errors; 0: no bound
  double give_up_seconds = 3;    // UNAVAILABLE with no success this long: stop
  bool progress = false;         // a live line on stderr (callers pass isatty)
};

// Makes channel `index` of `LoadOptions::connections`; the caller gives each
// distinct channel arguments so gRPC opens a connection per channel.
using ChannelFactory = std::function<std::shared_ptr<grpc::Channel>(int index)>;

// One pass's row of the response, kept per answer.
struct PassSample {
  std::string key;  // "pass (type/variant)"
  double gpu_ms = 0;
};

// What one run measured (only answers past the warm-up).
struct LoadResult {
  int concurrency = 0;
  double rps_target = 0;
  int connections = 0;
  double seconds = 0;           // first request due to last answer
  int64_t sent = 0;             // all requests sent, warm-up included
  int64_t warmup_skipped = 0;
  uint64_t bytes_sent = 0;      // serialized requests (counted answers)
  uint64_t bytes_received = 0;  // serialized responses, images included (counted OK answers)
  std::vector<double> latency_ms;                 // every counted answer, any status
  std::map<std::string, int64_t> codes;           // status code name → count
  std::map<std::string, int64_t> error_messages;  // "CODE: message" → count
  // Server stage times (StageTimings) and per-pass GPU times, OK answers only.
  std::map<std::string, std::vector<double>> stages_ms;
  std::map<std::string, std::vector<double>> pass_gpu_ms;
  std::string stopped;  // why the run stopped early ("" = it did not)

  int64_t count() const { return static_cast<int64_t>(latency_ms.size()); }
  int64_t ok() const;
  double rate() const { return seconds > 0 ? count() / seconds : 0; }
};

// Sends `requests` (rotated: the k-th request sent is requests[k % size])
// until the options' bounds; blocks until every caller is done. Each call
// sends the serialized bytes as they are and reads the response without its
// output images (client/load_call.h): per call, the client neither
// serializes nor copies images.
LoadResult RunLoad(const ChannelFactory& channels, const std::vector<SerializedRequest>& requests,
                   const LoadOptions& options);

// The same from messages: each is serialized once, before the run. A
// request protobuf cannot serialize (over 2 GiB) stops the run before it
// starts, with the reason in LoadResult::stopped.
LoadResult RunLoad(const ChannelFactory& channels, const std::vector<v1::ProcessRequest>& requests,
                   const LoadOptions& options);

}  // namespace rgfx::client
