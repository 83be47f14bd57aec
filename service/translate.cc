#include "service/translate.h"

#include <cstring>
#include <limits>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace rgfx::service {
namespace {

using google::protobuf::FieldDescriptor;

constexpr size_t kMaxNameLength = 128;

absl::Status CheckName(const std::string& what, const std::string& name) {
  if (name.empty()) return absl::InvalidArgumentError(absl::StrCat(what, ": name is empty"));
  if (name.size() > kMaxNameLength) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": name is ", name.size(), " characters; at most ", kMaxNameLength));
  }
  return absl::OkStatus();
}

std::string UnknownFieldNumbers(const google::protobuf::UnknownFieldSet& unknown) {
  std::string out;
  for (int i = 0; i < unknown.field_count(); ++i) {
    absl::StrAppend(&out, i ? ", " : "", unknown.field(i).number());
  }
  return out;
}

absl::StatusOr<graph::PixelFormat> RawFormat(v1::ImageEncoding encoding) {
  switch (encoding) {
    case v1::IMAGE_ENCODING_RGBA8: return graph::PixelFormat::kRgba8;
    case v1::IMAGE_ENCODING_RGBA16: return graph::PixelFormat::kRgba16;
    case v1::IMAGE_ENCODING_RGBA16F: return graph::PixelFormat::kRgba16F;
    case v1::IMAGE_ENCODING_RGBA32F: return graph::PixelFormat::kRgba32F;
    default: return absl::InvalidArgumentError("not a raw encoding");
  }
}

absl::StatusOr<graph::ColorSpace> ColorSpaceOf(v1::ColorSpace space, bool float_format,
                                               const std::string& what) {
  switch (space) {
    case v1::COLOR_SPACE_UNSPECIFIED:
      return float_format ? graph::ColorSpace::kLinear : graph::ColorSpace::kSrgb;
    case v1::COLOR_SPACE_SRGB: return graph::ColorSpace::kSrgb;
    case v1::COLOR_SPACE_LINEAR: return graph::ColorSpace::kLinear;
    default:
      return absl::InvalidArgumentError(absl::StrCat(what, ": unknown color_space ", space));
  }
}

absl::StatusOr<graph::AlphaMode> AlphaOf(v1::AlphaMode mode, const std::string& what) {
  switch (mode) {
    case v1::ALPHA_MODE_UNSPECIFIED:
    case v1::ALPHA_MODE_STRAIGHT: return graph::AlphaMode::kStraight;
    case v1::ALPHA_MODE_PREMULTIPLIED: return graph::AlphaMode::kPremultiplied;
    default:
      return absl::InvalidArgumentError(absl::StrCat(what, ": unknown alpha_mode ", mode));
  }
}

absl::StatusOr<InputPlan> PlanInput(const v1::Image& image, const SlicedBytes* external,
                                    const RequestLimits& limits, graph::InputDesc& desc) {
  const std::string what = absl::StrCat("image '", image.name(), "'");
  InputPlan plan;
  plan.image = &image;
  plan.external = external;
  desc.name = image.name();
  const auto data = std::as_bytes(std::span<const char>(image.data().data(), image.data().size()));
  const uint64_t data_size = external != nullptr ? external->size : data.size();
  if (image.encoding() == v1::IMAGE_ENCODING_PNG) {
    if (external != nullptr) {
      return absl::InternalError(absl::StrCat(what, ": PNG bytes were left outside the message"));
    }
    absl::StatusOr<PngInfo> info = ReadPngHeader(image.name(), data, limits.max_pixels);
    if (!info.ok()) return info.status();
    if ((image.width() != 0 && image.width() != info->width) ||
        (image.height() != 0 && image.height() != info->height)) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": width x height ", image.width(), "x", image.height(),
          " does not match the PNG's ", info->width, "x", info->height, " (leave them 0 for PNG)"));
    }
    plan.png = true;
    plan.png_info = *info;
    plan.decoded_bytes = info->decoded_bytes;
    desc.extent = {info->width, info->height};
    desc.format = info->format;
  } else if (image.encoding() == v1::IMAGE_ENCODING_UNSPECIFIED) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": encoding is not set"));
  } else {
    absl::StatusOr<graph::PixelFormat> format = RawFormat(image.encoding());
    if (!format.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": unknown encoding ", static_cast<int>(image.encoding())));
    }
    absl::StatusOr<uint64_t> bytes = CheckRawImage(image.name(), *format, image.width(),
                                                   image.height(), data_size, limits.max_pixels);
    if (!bytes.ok()) return bytes.status();
    plan.decoded_bytes = *bytes;
    desc.extent = {image.width(), image.height()};
    desc.format = *format;
  }
  absl::StatusOr<graph::ColorSpace> space =
      ColorSpaceOf(image.color_space(), graph::IsFloatFormat(desc.format), what);
  if (!space.ok()) return space.status();
  desc.color_space = *space;
  absl::StatusOr<graph::AlphaMode> alpha = AlphaOf(image.alpha_mode(), what);
  if (!alpha.ok()) return alpha.status();
  desc.alpha = *alpha;
  return plan;
}

absl::Status PlanOutputs(const v1::ProcessRequest& request, TranslatedRequest& out) {
  const v1::Options& options = request.options();
  const graph::InputDesc& first = out.desc.inputs.front();
  v1::ImageEncoding encoding = options.output_encoding();
  if (encoding == v1::IMAGE_ENCODING_UNSPECIFIED) {
    encoding = out.inputs.front().png ? v1::IMAGE_ENCODING_PNG : request.inputs(0).encoding();
  }
  graph::PixelFormat format = graph::PixelFormat::kRgba8;
  if (encoding == v1::IMAGE_ENCODING_PNG) {
    uint32_t depth = options.png_bit_depth();
    if (depth == 0) depth = first.format == graph::PixelFormat::kRgba16 ? 16 : 8;
    if (depth != 8 && depth != 16) {
      return absl::InvalidArgumentError(
          absl::StrCat("options.png_bit_depth = ", depth, " must be 8 or 16"));
    }
    format = depth == 16 ? graph::PixelFormat::kRgba16 : graph::PixelFormat::kRgba8;
    out.output.png.opaque_as_rgb = !options.png_keep_alpha();
    if (options.has_png_compression_level()) {
      const int level = options.png_compression_level();
      if (level < 0 || level > 9) {
        return absl::InvalidArgumentError(absl::StrCat(
            "options.png_compression_level = ", level, " is out of range [0, 9]"));
      }
      out.output.png.compression_level = level;
    }
  } else {
    absl::StatusOr<graph::PixelFormat> raw = RawFormat(encoding);
    if (!raw.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("options.output_encoding: unknown encoding ", static_cast<int>(encoding)));
    }
    format = *raw;
  }
  out.output.encoding = encoding;
  graph::ColorSpace space = first.color_space;
  if (options.output_color_space() != v1::COLOR_SPACE_UNSPECIFIED) {
    absl::StatusOr<graph::ColorSpace> s =
        ColorSpaceOf(options.output_color_space(), false, "options.output_color_space");
    if (!s.ok()) return s.status();
    space = *s;
  }
  graph::AlphaMode alpha = first.alpha;
  if (options.output_alpha_mode() != v1::ALPHA_MODE_UNSPECIFIED) {
    absl::StatusOr<graph::AlphaMode> a = AlphaOf(options.output_alpha_mode(), "options");
    if (!a.ok()) return a.status();
    alpha = *a;
  }
  for (int i = 0; i < request.graph().outputs_size(); ++i) {
    const std::string& name = request.graph().outputs(i);
    if (absl::Status s = CheckName(absl::StrCat("graph.outputs[", i, "]"), name); !s.ok()) {
      return s;
    }
    out.desc.outputs.push_back({name, format, space, alpha});
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> EnumValueParamName(const google::protobuf::EnumValueDescriptor& value) {
  const google::protobuf::EnumValueDescriptor* unspecified = value.type()->FindValueByNumber(0);
  constexpr absl::string_view kUnspecified = "UNSPECIFIED";
  if (unspecified == nullptr || !absl::EndsWith(unspecified->name(), kUnspecified)) {
    return absl::InternalError(
        absl::StrCat("enum ", value.type()->full_name(), " lacks an *_UNSPECIFIED = 0 value"));
  }
  const absl::string_view prefix = absl::string_view(unspecified->name())
                                       .substr(0, unspecified->name().size() - kUnspecified.size());
  if (!absl::StartsWith(value.name(), prefix)) {
    return absl::InternalError(absl::StrCat("enum value ", value.name(), " lacks prefix ", prefix));
  }
  return absl::AsciiStrToLower(absl::string_view(value.name()).substr(prefix.size()));
}

absl::StatusOr<graph::Params> ParamsFromMessage(const std::string& pass_name,
                                                const google::protobuf::Message& message) {
  const google::protobuf::Reflection& reflection = *message.GetReflection();
  if (reflection.GetUnknownFields(message).field_count() > 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "pass '", pass_name, "': parameters this server does not know (field numbers ",
        UnknownFieldNumbers(reflection.GetUnknownFields(message)),
        "); the client's .proto is newer than the server's"));
  }
  std::vector<const FieldDescriptor*> fields;
  reflection.ListFields(message, &fields);  // set fields only: see translate.h
  graph::Params params;
  for (const FieldDescriptor* field : fields) {
    const std::string& name = field->name();
    if (field->is_repeated()) {
      return absl::InternalError(absl::StrCat("parameter '", name, "' is repeated"));
    }
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        params.Set(name, int64_t{reflection.GetInt32(message, field)});
        break;
      case FieldDescriptor::CPPTYPE_INT64:
        params.Set(name, int64_t{reflection.GetInt64(message, field)});
        break;
      case FieldDescriptor::CPPTYPE_UINT32:
        params.Set(name, int64_t{reflection.GetUInt32(message, field)});
        break;
      case FieldDescriptor::CPPTYPE_UINT64: {
        const uint64_t v = reflection.GetUInt64(message, field);
        if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
          return absl::InvalidArgumentError(
              absl::StrCat("pass '", pass_name, "': parameter '", name, "' = ", v, " is too large"));
        }
        params.Set(name, static_cast<int64_t>(v));
        break;
      }
      case FieldDescriptor::CPPTYPE_FLOAT:
        params.Set(name, double{reflection.GetFloat(message, field)});
        break;
      case FieldDescriptor::CPPTYPE_DOUBLE:
        params.Set(name, reflection.GetDouble(message, field));
        break;
      case FieldDescriptor::CPPTYPE_BOOL:
        params.Set(name, reflection.GetBool(message, field));
        break;
      case FieldDescriptor::CPPTYPE_STRING:
        params.Set(name, reflection.GetString(message, field));
        break;
      case FieldDescriptor::CPPTYPE_ENUM: {
        const int number = reflection.GetEnumValue(message, field);
        const google::protobuf::EnumValueDescriptor* value =
            field->enum_type()->FindValueByNumber(number);
        if (value == nullptr) {  // open enums keep numbers from newer clients
          return absl::InvalidArgumentError(absl::StrCat("pass '", pass_name, "': parameter '",
                                                         name, "' has unknown value ", number));
        }
        absl::StatusOr<std::string> text = EnumValueParamName(*value);
        if (!text.ok()) return text.status();
        params.Set(name, *std::move(text));
        break;
      }
      case FieldDescriptor::CPPTYPE_MESSAGE:
        return absl::InternalError(absl::StrCat("parameter '", name, "' is a message"));
    }
  }
  return params;
}

absl::StatusOr<graph::PassDesc> TranslatePass(const v1::Pass& pass, int index) {
  const std::string what = absl::StrCat("graph.passes[", index, "]");
  if (absl::Status s = CheckName(what, pass.name()); !s.ok()) return s;
  graph::PassDesc desc;
  desc.name = pass.name();
  desc.inputs.assign(pass.inputs().begin(), pass.inputs().end());
  desc.outputs.assign(pass.outputs().begin(), pass.outputs().end());
  const google::protobuf::Reflection& reflection = *pass.GetReflection();
  const google::protobuf::OneofDescriptor* oneof = pass.GetDescriptor()->FindOneofByName("params");
  const FieldDescriptor* field = reflection.GetOneofFieldDescriptor(pass, oneof);
  if (field == nullptr) {
    std::string types;
    for (int i = 0; i < oneof->field_count(); ++i) {
      absl::StrAppend(&types, i ? ", " : "", oneof->field(i)->name());
    }
    const bool newer = reflection.GetUnknownFields(pass).field_count() > 0;
    return absl::InvalidArgumentError(absl::StrCat(
        "pass '", pass.name(), "': ",
        newer ? "unknown pass type (a parameters message this server does not know)"
              : "no pass type: set one of its parameters messages",
        " (known: ", types, ")"));
  }
  desc.type = field->name();
  absl::StatusOr<graph::Params> params =
      ParamsFromMessage(pass.name(), reflection.GetMessage(pass, field));
  if (!params.ok()) return params.status();
  desc.params = *std::move(params);
  return desc;
}

absl::StatusOr<TranslatedRequest> TranslateRequest(const v1::ProcessRequest& request,
                                                   const RequestLimits& limits,
                                                   const ExternalImages* external) {
  TranslatedRequest out;
  if (request.id().size() > kMaxNameLength) {
    return absl::InvalidArgumentError(absl::StrCat("id is ", request.id().size(),
                                                   " characters; at most ", kMaxNameLength));
  }
  if (request.inputs().empty()) return absl::InvalidArgumentError("inputs: no input images");
  if (request.inputs_size() > limits.max_inputs) {
    return absl::ResourceExhaustedError(absl::StrCat("inputs: ", request.inputs_size(),
                                                     " images; the limit is ", limits.max_inputs));
  }
  if (!request.has_graph()) return absl::InvalidArgumentError("graph: missing");
  if (request.graph().passes_size() > limits.max_passes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "graph: ", request.graph().passes_size(), " passes; the server's limit is ",
        limits.max_passes, " (--max_passes)"));
  }
  absl::flat_hash_set<std::string> names;
  for (int i = 0; i < request.inputs_size(); ++i) {
    const v1::Image& image = request.inputs(i);
    if (absl::Status s = CheckName(absl::StrCat("inputs[", i, "]"), image.name()); !s.ok()) {
      return s;
    }
    if (!names.insert(image.name()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("inputs[", i, "]: duplicate image name '", image.name(), "'"));
    }
    graph::InputDesc desc;
    absl::StatusOr<InputPlan> plan = PlanInput(
        image, external != nullptr ? external->input(static_cast<size_t>(i)) : nullptr, limits,
        desc);
    if (!plan.ok()) return plan.status();
    out.inputs.push_back(*plan);
    out.desc.inputs.push_back(desc);
  }
  for (int i = 0; i < request.graph().passes_size(); ++i) {
    absl::StatusOr<graph::PassDesc> pass = TranslatePass(request.graph().passes(i), i);
    if (!pass.ok()) return pass.status();
    out.desc.passes.push_back(*std::move(pass));
  }
  switch (request.options().working_format()) {
    case v1::WORKING_FORMAT_UNSPECIFIED:
      out.desc.working_format = limits.default_working_format;
      break;
    case v1::WORKING_FORMAT_RGBA16F: out.desc.working_format = graph::PixelFormat::kRgba16F; break;
    case v1::WORKING_FORMAT_RGBA32F: out.desc.working_format = graph::PixelFormat::kRgba32F; break;
    default:
      return absl::InvalidArgumentError(absl::StrCat("options.working_format: unknown value ",
                                                     request.options().working_format()));
  }
  if (absl::Status s = PlanOutputs(request, out); !s.ok()) return s;
  const uint32_t repeats = request.options().gpu_repeats();
  if (repeats > static_cast<uint32_t>(limits.max_gpu_repeats)) {
    return absl::InvalidArgumentError(absl::StrCat("options.gpu_repeats = ", repeats,
                                                   " exceeds the server's max_gpu_repeats of ",
                                                   limits.max_gpu_repeats));
  }
  out.gpu_repeats = std::max<int>(1, static_cast<int>(repeats));
  return out;
}

absl::Status DecodeInput(const InputPlan& plan, std::span<std::byte> dst,
                         const PngDecodeOptions& png_options) {
  const std::string& data = plan.image->data();
  const auto bytes = std::as_bytes(std::span<const char>(data.data(), data.size()));
  if (plan.png) return DecodePngInto(plan.image->name(), bytes, plan.png_info, dst, png_options);
  const uint64_t size = plan.external != nullptr ? plan.external->size : bytes.size();
  if (dst.size() != size) {
    return absl::InternalError(absl::StrCat("image '", plan.image->name(), "': buffer size"));
  }
  if (plan.external != nullptr) {
    plan.external->CopyTo(dst);  // from gRPC's receive slices: the one copy
  } else {
    std::memcpy(dst.data(), bytes.data(), bytes.size());
  }
  return absl::OkStatus();
}

std::string GraphHash(const graph::GraphDesc& desc) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : graph::CanonicalKey(desc)) {
    hash = (hash ^ c) * 1099511628211ull;
  }
  return absl::StrFormat("%016x", hash);
}

}  // namespace rgfx::service
