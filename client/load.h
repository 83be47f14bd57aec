// `rgfx load`: the service's throughput and latency under concurrent
// clients (DESIGN.md §7), measured with the project's own client. Sends one
// request over and over from N concurrent callers and reports throughput,
// latency percentiles, errors by gRPC code and the server's median stage
// times. Its request loop is bounded in count and time and stops by itself.
#pragma once

#include <memory>

#include <grpcpp/grpcpp.h>

#include "rgfx/v1/post_process.pb.h"

namespace rgfx::client {

struct LoadOptions {
  int concurrency = 8;      // callers, each with one request in flight
  int requests = 200;       // answers to collect in all
  double max_seconds = 60;  // stop sending after this long, whatever the count
  double timeout_seconds = 120;  // deadline of each request
};

// Prints the report; returns a process exit code (1 if any request failed).
int RunLoad(const std::shared_ptr<grpc::Channel>& channel, const v1::ProcessRequest& request,
            const LoadOptions& options);

}  // namespace rgfx::client
