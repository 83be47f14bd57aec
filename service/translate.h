// Proto -> graph translation (the graph library never sees protobuf).
//
// Pass parameters are translated generically through protobuf reflection:
// the set `Pass.params` field's name is the pass type ("gaussian_blur"), and
// every field of its message that is set becomes the graph::Params entry of
// the same name. "Set" is protobuf's own rule (Reflection::ListFields): a
// field with presence (a message, or a one-field `oneof`) when the client set
// it, even to zero; a plain scalar when it is not zero / *_UNSPECIFIED. So
// zero means "the pass's default" (its ParamSpec default, or one it derives
// such as sigma = radius / 2), and a new pass type needs only its proto
// message: no code here changes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "google/protobuf/message.h"
#include "graph/description.h"
#include "rgfx/v1/post_process.pb.h"
#include "service/external_images.h"
#include "service/png_codec.h"

namespace rgfx::service {

// Enum values as the graph spells them: BORDER_MODE_MIRROR -> "mirror" (the
// prefix is the one of the enum's *_UNSPECIFIED value).
absl::StatusOr<std::string> EnumValueParamName(const google::protobuf::EnumValueDescriptor& value);

// The parameters of one pass from its params message.
absl::StatusOr<graph::Params> ParamsFromMessage(const std::string& pass_name,
                                                const google::protobuf::Message& message);

absl::StatusOr<graph::PassDesc> TranslatePass(const v1::Pass& pass, int index);

struct RequestLimits {
  uint64_t max_pixels = 64ull << 20;
  int max_passes = 64;
  int max_inputs = 64;
  int max_gpu_repeats = 100;  // Options.gpu_repeats
  graph::PixelFormat default_working_format = graph::PixelFormat::kRgba16F;
};

// An input as the request carries it, with its header read (PNG) or its size
// checked (raw), and nothing decoded yet.
struct InputPlan {
  const v1::Image* image = nullptr;
  // Set when the image's bytes are not in image->data() but in gRPC's
  // receive slices (raw inputs of a unary Process call).
  const SlicedBytes* external = nullptr;
  bool png = false;
  PngInfo png_info;          // when png
  uint64_t decoded_bytes = 0;  // client-format bytes the GPU upload reads
};

struct OutputPlan {
  v1::ImageEncoding encoding = v1::IMAGE_ENCODING_PNG;
  PngEncodeOptions png;
};

struct TranslatedRequest {
  graph::GraphDesc desc;
  std::vector<InputPlan> inputs;  // desc.inputs order
  OutputPlan output;
  int gpu_repeats = 1;  // Options.gpu_repeats, checked against the limit
};

// Checks the request's shape, reads image headers against the limits and
// builds the graph description; the graph itself is validated by compiling.
// Errors name the image, pass or field (InvalidArgument), or the limit
// (ResourceExhausted).
// `external`: where inputs' bytes are kept outside the message (may be null).
absl::StatusOr<TranslatedRequest> TranslateRequest(const v1::ProcessRequest& request,
                                                   const RequestLimits& limits,
                                                   const ExternalImages* external = nullptr);

// Decodes input `plan` into `dst` (plan.decoded_bytes long): PNG decode, or
// a copy of raw bytes.
absl::Status DecodeInput(const InputPlan& plan, std::span<std::byte> dst,
                         const PngDecodeOptions& png_options = {});

// FNV-1a of the canonical key, as 16 hex digits: the graph hash in responses
// and logs (stable across processes, unlike absl::Hash).
std::string GraphHash(const graph::GraphDesc& desc);

}  // namespace rgfx::service
