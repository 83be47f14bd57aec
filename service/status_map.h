// The one place our errors become gRPC statuses (DESIGN.md §3). Our layers
// already choose the right absl code (InvalidArgument for what a client
// sent, ResourceExhausted for limits, Unavailable for a lost device), so the
// mapping is by code; the message is kept because it names the image, pass
// or field.
#pragma once

#include <grpcpp/support/status.h>

#include "absl/status/status.h"

namespace rgfx::service {

grpc::Status ToGrpcStatus(const absl::Status& status);

// For ProcessStream's per-request errors and for tests.
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace rgfx::service
