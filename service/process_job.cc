#include "service/process_job.h"

#include <atomic>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "passes/gaussian_blur.h"
#include "passes/image_metrics.h"
#include "service/log.h"

namespace rgfx::service {
namespace {

int64_t NanosSince(absl::Time start) { return absl::ToInt64Nanoseconds(absl::Now() - start); }

// How far a planned pass is from its exact variant (nullptr: not stated,
// e.g. a pass type without variants).
const passes::BlurAccuracy* AccuracyOf(const graph::CompiledPass& pass) {
  return pass.internal ? nullptr : passes::FindBlurAccuracy(pass.plan);
}

bool IsApproximate(const graph::CompiledPass& pass) {
  const passes::BlurAccuracy* accuracy = AccuracyOf(pass);
  return accuracy != nullptr && !accuracy->exact;
}

// Downloads exported RGBA32F outputs as floats, one vector per output.
graph::ConsumeOutputFn ConsumeFloats(std::vector<std::vector<float>>& values) {
  return [&values](int index, std::span<const std::byte> src) -> absl::Status {
    if (src.size() % sizeof(float) != 0) {
      return absl::InternalError(absl::StrCat("output ", index, ": not RGBA32F"));
    }
    values[index].resize(src.size() / sizeof(float));
    std::memcpy(values[index].data(), src.data(), src.size());
    return absl::OkStatus();
  };
}

v1::ImageEncoding RawEncoding(graph::PixelFormat format) {
  switch (format) {
    case graph::PixelFormat::kRgba8: return v1::IMAGE_ENCODING_RGBA8;
    case graph::PixelFormat::kRgba16: return v1::IMAGE_ENCODING_RGBA16;
    case graph::PixelFormat::kRgba16F: return v1::IMAGE_ENCODING_RGBA16F;
    case graph::PixelFormat::kRgba32F: return v1::IMAGE_ENCODING_RGBA32F;
  }
  return v1::IMAGE_ENCODING_UNSPECIFIED;
}

}  // namespace

std::string NewRequestId() {
  static std::atomic<uint64_t> counter{0};
  static const uint64_t start = static_cast<uint64_t>(absl::ToUnixMicros(absl::Now()));
  return absl::StrFormat("r%x-%d", start & 0xffffff, counter.fetch_add(1) + 1);
}

ProcessJob::ProcessJob(Engine& engine, const ServiceConfig& config,
                       const v1::ProcessRequest& request, v1::ProcessResponse& response,
                       absl::Time deadline, std::function<bool()> cancelled,
                       std::function<void(const absl::Status&)> done)
    : engine_(engine),
      config_(config),
      request_(request),
      response_(response),
      deadline_(deadline),
      cancelled_(std::move(cancelled)),
      done_(std::move(done)),
      arrival_(absl::Now()),
      id_(request.id().empty() ? NewRequestId() : request.id()) {}

absl::Status ProcessJob::CheckAlive() {
  if (cancelled_ && cancelled_()) return absl::CancelledError("the client cancelled the request");
  if (absl::Now() > deadline_) {
    return absl::DeadlineExceededError("the request's deadline passed before it was processed");
  }
  return absl::OkStatus();
}

absl::Status ProcessJob::Prepare() {
  absl::Time start = absl::Now();
  absl::StatusOr<TranslatedRequest> translated = TranslateRequest(request_, config_.limits);
  if (!translated.ok()) return translated.status();
  translated_ = *std::move(translated);
  graph_hash_ = GraphHash(translated_.desc);
  // Compile before decoding: a bad graph fails without paying for the decode.
  absl::StatusOr<std::shared_ptr<const graph::CompiledGraph>> compiled =
      engine_.Compile(translated_.desc, &cache_hit_);
  if (!compiled.ok()) return compiled.status();
  compiled_ = *std::move(compiled);
  if (request_.options().report_error()) {
    if (absl::Status s = PrepareErrorRuns(); !s.ok()) return s;
  }
  compile_ns_ = NanosSince(start);

  start = absl::Now();
  decoded_.resize(translated_.inputs.size());
  for (size_t i = 0; i < translated_.inputs.size(); ++i) {
    const InputPlan& plan = translated_.inputs[i];
    if (!plan.png) continue;
    decoded_[i].resize(plan.decoded_bytes);
    if (absl::Status s = DecodeInput(plan, decoded_[i]); !s.ok()) return s;
  }
  decode_ns_ = NanosSince(start);
  return absl::OkStatus();
}

absl::Status ProcessJob::PrepareErrorRuns() {
  for (const graph::CompiledPass& pass : compiled_->passes) {
    if (IsApproximate(pass) && !pass.impl->schema().variant_param.empty()) {
      approximate_passes_.push_back(pass.name);
    }
  }
  if (approximate_passes_.empty()) return absl::OkStatus();
  // Both compared runs export RGBA32F linear premultiplied: the working
  // values, without the output encoding's rounding.
  graph::GraphDesc measured = translated_.desc;
  for (graph::OutputDesc& out : measured.outputs) {
    out.format = graph::PixelFormat::kRgba32F;
    out.color_space = graph::ColorSpace::kLinear;
    out.alpha = graph::AlphaMode::kPremultiplied;
  }
  graph::GraphDesc reference = measured;
  for (graph::PassDesc& pass : reference.passes) {
    for (const graph::CompiledPass& compiled : compiled_->passes) {
      if (compiled.name != pass.name || !IsApproximate(compiled)) continue;
      pass.params.Set(compiled.impl->schema().variant_param, std::string("exact"));
    }
  }
  bool hit = false;
  absl::StatusOr<std::shared_ptr<const graph::CompiledGraph>> exact =
      engine_.Compile(reference, &hit);
  if (!exact.ok()) {
    return absl::Status(exact.status().code(),
                        absl::StrCat("options.report_error: the exact reference graph: ",
                                     exact.status().message()));
  }
  error_reference_ = *std::move(exact);
  if (graph::CanonicalKey(measured) != graph::CanonicalKey(translated_.desc)) {
    absl::StatusOr<std::shared_ptr<const graph::CompiledGraph>> m = engine_.Compile(measured, &hit);
    if (!m.ok()) return m.status();
    error_measured_ = *std::move(m);
  }
  return absl::OkStatus();
}

absl::Status ProcessJob::RunErrorRuns(int worker, const graph::FillInputFn& fill) {
  const size_t outputs = translated_.desc.outputs.size();
  measured_values_.assign(outputs, {});
  reference_values_.assign(outputs, {});
  if (error_measured_ != nullptr) {
    if (absl::Status s = CheckAlive(); !s.ok()) return s;
    absl::StatusOr<graph::RunResult> run =
        engine_.Run(worker, *error_measured_, fill, ConsumeFloats(measured_values_));
    if (!run.ok()) return run.status();
  } else {  // the returned outputs are raw RGBA32F linear premultiplied
    for (size_t i = 0; i < outputs; ++i) {
      const std::string& data = response_.outputs(static_cast<int>(i)).data();
      measured_values_[i].resize(data.size() / sizeof(float));
      std::memcpy(measured_values_[i].data(), data.data(),
                  measured_values_[i].size() * sizeof(float));
    }
  }
  if (absl::Status s = CheckAlive(); !s.ok()) return s;
  absl::StatusOr<graph::RunResult> run =
      engine_.Run(worker, *error_reference_, fill, ConsumeFloats(reference_values_));
  return run.status();
}

absl::Status ProcessJob::RunGpu(int worker) {
  const absl::Time start = absl::Now();
  const auto fill = [this](int index, std::span<std::byte> dst) -> absl::Status {
    const InputPlan& plan = translated_.inputs[index];
    if (!plan.png) return DecodeInput(plan, dst);  // raw: one copy, request -> staging
    if (dst.size() != decoded_[index].size()) {
      return absl::InternalError(absl::StrCat("input ", index, ": staging size mismatch"));
    }
    std::memcpy(dst.data(), decoded_[index].data(), dst.size());
    return absl::OkStatus();
  };
  const bool png = translated_.output.encoding == v1::IMAGE_ENCODING_PNG;
  downloaded_.resize(translated_.desc.outputs.size());
  response_.clear_outputs();
  for (size_t i = 0; i < translated_.desc.outputs.size(); ++i) response_.add_outputs();
  const auto consume = [&](int index, std::span<const std::byte> src) -> absl::Status {
    if (png) {
      // Encoding takes far longer than this copy; it runs on the CPU pool so
      // the GPU worker can take the next request.
      downloaded_[index].assign(src.begin(), src.end());
    } else {
      response_.mutable_outputs(index)->mutable_data()->assign(
          reinterpret_cast<const char*>(src.data()), src.size());
    }
    return absl::OkStatus();
  };
  absl::StatusOr<graph::RunResult> run =
      engine_.Run(worker, *compiled_, fill, consume, translated_.gpu_repeats);
  if (!run.ok()) return run.status();
  run_ = *std::move(run);
  if (error_reference_ != nullptr) {
    if (absl::Status s = RunErrorRuns(worker, fill); !s.ok()) return s;
  }
  gpu_stage_ns_ = NanosSince(start);
  // Pixels are uploaded; the decoded copies are no longer needed.
  decoded_.clear();
  return absl::OkStatus();
}

absl::Status ProcessJob::Finish() {
  const absl::Time start = absl::Now();
  const bool png = translated_.output.encoding == v1::IMAGE_ENCODING_PNG;
  for (size_t i = 0; i < translated_.desc.outputs.size(); ++i) {
    const graph::OutputDesc& out = translated_.desc.outputs[i];
    const graph::Extent extent = compiled_->resources[compiled_->exported[i]].extent;
    v1::Image& image = *response_.mutable_outputs(static_cast<int>(i));
    image.set_name(out.name);
    image.set_width(extent.width);
    image.set_height(extent.height);
    image.set_color_space(out.color_space == graph::ColorSpace::kSrgb ? v1::COLOR_SPACE_SRGB
                                                                      : v1::COLOR_SPACE_LINEAR);
    image.set_alpha_mode(out.alpha == graph::AlphaMode::kStraight ? v1::ALPHA_MODE_STRAIGHT
                                                                  : v1::ALPHA_MODE_PREMULTIPLIED);
    if (png) {
      absl::StatusOr<std::string> encoded = EncodePng(downloaded_[i], extent.width, extent.height,
                                                      out.format, translated_.output.png);
      if (!encoded.ok()) return encoded.status();
      image.set_encoding(v1::IMAGE_ENCODING_PNG);
      *image.mutable_data() = *std::move(encoded);
      std::vector<std::byte>().swap(downloaded_[i]);
    } else {
      image.set_encoding(RawEncoding(out.format));
    }
  }
  encode_ns_ = NanosSince(start);

  if (error_reference_ != nullptr) {
    for (size_t i = 0; i < translated_.desc.outputs.size(); ++i) {
      v1::OutputError& error = *response_.add_output_errors();
      error.set_output(translated_.desc.outputs[i].name);
      error.set_psnr_vs_exact_db(passes::Psnr(reference_values_[i], measured_values_[i]));
      for (const std::string& name : approximate_passes_) error.add_approximate_passes(name);
    }
    std::vector<std::vector<float>>().swap(measured_values_);
    std::vector<std::vector<float>>().swap(reference_values_);
  }

  for (const graph::PassTiming& pass : run_.passes) {
    v1::PassTiming& row = *response_.add_passes();
    row.set_pass(pass.pass);
    row.set_type(pass.type);
    row.set_variant(pass.variant);
    row.set_internal(pass.internal);
    if (pass.gpu_ns) row.set_gpu_ns(*pass.gpu_ns);
    for (const graph::CompiledPass& compiled : compiled_->passes) {
      if (compiled.internal || compiled.name != pass.pass) continue;
      if (const passes::BlurAccuracy* accuracy = AccuracyOf(compiled);
          accuracy != nullptr && !accuracy->exact) {
        row.set_approximate(true);
        if (accuracy->noise_psnr_db) row.set_stated_psnr_db(*accuracy->noise_psnr_db);
      }
    }
    for (const graph::StepTiming& step : pass.steps) {
      v1::StepTiming& s = *row.add_steps();
      s.set_label(step.label);
      if (step.gpu_ns) s.set_gpu_ns(*step.gpu_ns);
    }
  }
  const graph::GraphStats& stats = compiled_->stats;
  v1::GraphStats& out = *response_.mutable_stats();
  out.set_passes_run(stats.passes_run);
  out.set_passes_culled(stats.passes_culled);
  for (const std::string& name : compiled_->culled) out.add_culled(name);
  out.set_steps(stats.steps);
  out.set_barriers(stats.barriers);
  out.set_transient_buffers(stats.transient_buffers);
  out.set_transient_bytes(stats.transient_bytes);
  out.set_transient_bytes_unaliased(stats.transient_bytes_unaliased);
  out.set_cache_hit(cache_hit_);
  response_.set_device(engine_.caps().name);
  response_.set_graph_hash(graph_hash_);
  return absl::OkStatus();
}

void ProcessJob::Done(const absl::Status& status) {
  response_.set_id(id_);
  v1::StageTimings& stages = *response_.mutable_stages();
  stages.set_queue_ns(queue_ns());
  stages.set_decode_ns(decode_ns_);
  stages.set_compile_ns(compile_ns_);
  stages.set_upload_ns(run_.upload_ns);
  stages.set_submit_ns(run_.submit_ns);
  if (run_.gpu_ns) stages.set_gpu_ns(*run_.gpu_ns);
  stages.set_download_ns(run_.download_ns);
  stages.set_encode_ns(encode_ns_);
  stages.set_total_ns(NanosSince(arrival_));

  std::vector<std::string> sizes;
  for (const graph::InputDesc& in : translated_.desc.inputs) {
    sizes.push_back(absl::StrCat(in.name, ":", in.extent.width, "x", in.extent.height));
  }
  auto ms = [](int64_t ns) { return absl::StrFormat("%.3f", ns / 1e6); };
  // Numeric fields stay numbers in JSON logs.
  auto num = [&](std::string key, int64_t ns) { return LogField{std::move(key), ms(ns), true}; };
  ServerLog().Info(
      "request", {Field("id", id_), Field("inputs", absl::StrJoin(sizes, ",")),
                  Field("graph", graph_hash_.empty() ? "-" : graph_hash_),
                  Field("cache_hit", cache_hit_ ? "true" : "false"),
                  num("queue_ms", queue_ns()), num("decode_ms", decode_ns_),
                  num("compile_ms", compile_ns_), num("upload_ms", run_.upload_ns),
                  Field("gpu_ms", run_.gpu_ns ? ms(static_cast<int64_t>(*run_.gpu_ns)) : "-"),
                  num("gpu_stage_ms", gpu_stage_ns_),
                  num("download_ms", run_.download_ns), num("encode_ms", encode_ns_),
                  num("total_ms", stages.total_ns()),
                  Field("status", std::string(absl::StatusCodeToString(status.code()))),
                  Field("error", std::string(status.message()))});
  if (done_) done_(status);
}

}  // namespace rgfx::service
