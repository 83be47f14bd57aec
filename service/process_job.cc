#include "service/process_job.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

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

// Decodes and encodes (and raw copies) in progress in this process: the
// cores are shared among them. A decode takes a second thread
// (PipelineDecode) and an encode several (EncodeThreadsByLoad) only while
// there are cores to spare; under full load both run on the one thread
// they have, and extra threads would only wait for each other.
std::atomic<int> cpu_stages_now{0};

class CpuStage {
 public:
  CpuStage() : concurrent_(cpu_stages_now.fetch_add(1) + 1) {}
  ~CpuStage() { cpu_stages_now.fetch_sub(1); }
  CpuStage(const CpuStage&) = delete;
  CpuStage& operator=(const CpuStage&) = delete;
  int concurrent() const { return concurrent_; }  // counting this one

 private:
  const int concurrent_;
};

// One PNG output. With GPU-filtered scanlines (OutputDesc::png_rows) only
// the deflate runs here when every row is opaque; otherwise the pixels, which
// lie first in the same buffer, are encoded as usual (RGBA).
absl::StatusOr<std::string> EncodeOutput(const gpu::BufferSlice& staged,
                                         const graph::OutputDesc& out, graph::Extent extent,
                                         const PngEncodeOptions& options) {
  if (!out.png_rows) {
    return EncodePng({staged.mapped, staged.size}, extent.width, extent.height, out.format,
                     options);
  }
  const graph::PngRowsLayout layout = graph::PngRowsLayoutOf(extent);
  if (staged.size != layout.total_bytes) {
    return absl::InternalError(absl::StrCat("output '", out.name, "': ", staged.size,
                                            " staged bytes, PNG rows need ", layout.total_bytes));
  }
  bool opaque = true;
  for (uint32_t y = 0; y < extent.height && opaque; ++y) {
    uint32_t flag;
    std::memcpy(&flag, staged.mapped + layout.flags_offset + 4 * uint64_t{y}, 4);
    opaque = flag == 1;
  }
  if (opaque) {
    return EncodePngFromFilteredRows(
        {staged.mapped + layout.rows_offset, layout.row_stride * extent.height}, extent.width,
        extent.height, options);
  }
  return EncodePng({staged.mapped, layout.pixel_bytes}, extent.width, extent.height, out.format,
                   options);
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

bool GpuFiltersPngRows(GpuPngRows mode, const gpu::DeviceCaps& caps) {
  if (mode == GpuPngRows::kOff || !caps.storage_int8) return false;
  return mode == GpuPngRows::kOn || caps.type != "cpu";
}

std::string NewRequestId() {
  static std::atomic<uint64_t> counter{0};
  static const uint64_t start = static_cast<uint64_t>(absl::ToUnixMicros(absl::Now()));
  return absl::StrFormat("r%x-%d", start & 0xffffff, counter.fetch_add(1) + 1);
}

ProcessJob::ProcessJob(Engine& engine, const ServiceConfig& config,
                       const v1::ProcessRequest& request, v1::ProcessResponse& response,
                       absl::Time deadline, std::function<bool()> cancelled,
                       std::function<void(const absl::Status&)> done, ExternalImages* external)
    : engine_(engine),
      config_(config),
      request_(request),
      response_(response),
      external_(external),
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
  absl::StatusOr<TranslatedRequest> translated = TranslateRequest(request_, config_.limits, external_);
  if (!translated.ok()) return translated.status();
  translated_ = *std::move(translated);
  const bool gpu_rows = GpuFiltersPngRows(config_.gpu_png_rows, engine_.caps()) &&
                        translated_.output.encoding == v1::IMAGE_ENCODING_PNG &&
                        EncodesFilteredRows(translated_.output.png);
  for (graph::OutputDesc& out : translated_.desc.outputs) {
    out.png_rows = gpu_rows && out.format == graph::PixelFormat::kRgba8;
  }
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

  if (absl::Status s = ReserveMemory(); !s.ok()) return s;
  if (absl::Status s = StageInputs(); !s.ok()) return s;
  if (absl::Status s = StageOutputs(); !s.ok()) return s;
  // Requests with the same compiled graph (same graph, sizes and formats)
  // and repeats do the same GPU work: they may share a submission.
  // report_error runs extra graphs, so it runs alone.
  if (error_reference_ == nullptr) {
    batch_key_ = absl::StrCat(reinterpret_cast<uintptr_t>(compiled_.get()), "/",
                              translated_.gpu_repeats);
  }
  return absl::OkStatus();
}

namespace {
constexpr uint64_t kStagingAlignment = 256;
uint64_t AlignUp(uint64_t v) { return (v + kStagingAlignment - 1) / kStagingAlignment * kStagingAlignment; }

// Device memory one run of `graph` takes from a worker's arena.
uint64_t GpuBytes(const graph::CompiledGraph* graph) {
  if (graph == nullptr) return 0;
  uint64_t bytes = 0;
  for (const auto& buffer : graph->buffers) bytes += AlignUp(buffer.bytes);
  for (const auto& pass : graph->passes) {
    for (const auto& blob : pass.plan.constants) bytes += AlignUp(blob.size());
  }
  return bytes;
}
}  // namespace

absl::Status ProcessJob::ReserveMemory() {
  // Host: the staging of inputs and outputs, and as much again for the
  // encoded outputs (a PNG is rarely larger than its pixels; raw outputs are
  // one copy of them). GPU: the largest graph this request runs.
  uint64_t inputs = 0, outputs = 0;
  for (const InputPlan& plan : translated_.inputs) inputs += AlignUp(plan.decoded_bytes);
  for (int r : compiled_->exported) outputs += AlignUp(compiled_->resources[r].bytes);
  const uint64_t gpu = std::max({GpuBytes(compiled_.get()), GpuBytes(error_measured_.get()),
                                 GpuBytes(error_reference_.get())});
  absl::StatusOr<MemoryBudget::Reservation> reservation =
      engine_.memory_budget().Reserve(inputs + 2 * outputs, gpu);
  if (!reservation.ok()) return reservation.status();
  memory_ = *std::move(reservation);
  return absl::OkStatus();
}

absl::Status ProcessJob::StageInputs() {
  // One lease for all inputs, each at an aligned offset.
  std::vector<uint64_t> offsets;
  uint64_t total = 0;
  for (const InputPlan& plan : translated_.inputs) {
    offsets.push_back(total);
    total += AlignUp(plan.decoded_bytes);
  }
  absl::StatusOr<gpu::StagingLease> lease = engine_.AcquireUpload(std::max<uint64_t>(total, 1));
  if (!lease.ok()) return lease.status();
  upload_ = *std::move(lease);
  staged_.inputs.assign(translated_.inputs.size(), {});
  for (size_t i = 0; i < translated_.inputs.size(); ++i) {
    const InputPlan& plan = translated_.inputs[i];
    const gpu::BufferSlice slice = upload_.Slice(offsets[i], plan.decoded_bytes);
    const int r = compiled_->imported[i];
    if (r >= 0 && compiled_->resources[r].bytes != plan.decoded_bytes) {
      return absl::InternalError(absl::StrCat("input ", i, ": ", plan.decoded_bytes,
                                              " decoded bytes, the graph imports ",
                                              compiled_->resources[r].bytes));
    }
    // PNG: decoded straight into the upload memory; raw: the one copy from
    // the request into it.
    const absl::Time start = absl::Now();
    // Pipelined (two threads) only while the cores are not all taken.
    const CpuStage stage;
    const absl::Status decoded = DecodeInput(
        plan, {slice.mapped, plan.decoded_bytes},
        {.pipelined = PipelineDecode(stage.concurrent(), std::thread::hardware_concurrency())});
    if (!decoded.ok()) return decoded;
    (plan.png ? decode_ns_ : upload_ns_) += NanosSince(start);
    if (r >= 0) staged_.inputs[i] = slice;
  }
  return absl::OkStatus();
}

absl::Status ProcessJob::StageOutputs() {
  std::vector<uint64_t> offsets;
  uint64_t total = 0;
  for (int r : compiled_->exported) {
    offsets.push_back(total);
    total += AlignUp(compiled_->resources[r].bytes);
  }
  absl::StatusOr<gpu::StagingLease> lease = engine_.AcquireReadback(std::max<uint64_t>(total, 1));
  if (!lease.ok()) return lease.status();
  readback_ = *std::move(lease);
  staged_.outputs.clear();
  for (size_t i = 0; i < compiled_->exported.size(); ++i) {
    staged_.outputs.push_back(
        readback_.Slice(offsets[i], compiled_->resources[compiled_->exported[i]].bytes));
  }
  return absl::OkStatus();
}

graph::FillInputFn ProcessJob::FillFromStaging() const {
  // report_error's extra runs use the executor's own staging: one more copy,
  // only for those.
  return [this](int index, std::span<std::byte> dst) -> absl::Status {
    const gpu::BufferSlice& src = staged_.inputs[index];
    if (dst.size() != src.size) {
      return absl::InternalError(absl::StrCat("input ", index, ": staging size mismatch"));
    }
    std::memcpy(dst.data(), src.mapped, dst.size());
    return absl::OkStatus();
  };
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
    out.png_rows = false;
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
      const gpu::BufferSlice& data = staged_.outputs[i];
      measured_values_[i].resize(data.size / sizeof(float));
      std::memcpy(measured_values_[i].data(), data.mapped,
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
  absl::StatusOr<std::vector<graph::RunResult>> runs = engine_.RunStaged(
      worker, *compiled_, std::span<const graph::StagedRun>(&staged_, 1), translated_.gpu_repeats);
  if (!runs.ok()) return runs.status();
  run_ = std::move(runs->front());
  if (error_reference_ != nullptr) {
    if (absl::Status s = RunErrorRuns(worker, FillFromStaging()); !s.ok()) return s;
  }
  gpu_stage_ns_ = NanosSince(start);
  // The pixels are on the GPU side of the copy: the upload memory can serve
  // the next request.
  upload_.Release();
  return absl::OkStatus();
}

std::vector<absl::Status> ProcessJob::RunGpuBatch(int worker, std::span<Job* const> batch) {
  // Every job of the batch is a ProcessJob with this job's key: the same
  // compiled graph and repeats (Scheduler's contract).
  const absl::Time start = absl::Now();
  std::vector<graph::StagedRun> runs;
  for (Job* job : batch) runs.push_back(static_cast<ProcessJob*>(job)->staged_);
  absl::StatusOr<std::vector<graph::RunResult>> results =
      engine_.RunStaged(worker, *compiled_, runs, translated_.gpu_repeats);
  const int64_t elapsed = NanosSince(start);
  std::vector<absl::Status> statuses;
  for (size_t i = 0; i < batch.size(); ++i) {
    auto* job = static_cast<ProcessJob*>(batch[i]);
    if (!results.ok()) {
      statuses.push_back(results.status());
      continue;
    }
    job->run_ = std::move((*results)[i]);
    job->gpu_stage_ns_ = elapsed;
    job->upload_.Release();
    statuses.push_back(absl::OkStatus());
  }
  return statuses;
}

absl::Status ProcessJob::Finish() {
  const absl::Time start = absl::Now();
  const bool png = translated_.output.encoding == v1::IMAGE_ENCODING_PNG;
  const bool hold = !png && external_ != nullptr;
  response_.clear_outputs();
  for (size_t i = 0; i < translated_.desc.outputs.size(); ++i) {
    const graph::OutputDesc& out = translated_.desc.outputs[i];
    const graph::Extent extent = compiled_->resources[compiled_->exported[i]].extent;
    v1::Image& image = *response_.add_outputs();
    image.set_name(out.name);
    image.set_width(extent.width);
    image.set_height(extent.height);
    image.set_color_space(out.color_space == graph::ColorSpace::kSrgb ? v1::COLOR_SPACE_SRGB
                                                                      : v1::COLOR_SPACE_LINEAR);
    image.set_alpha_mode(out.alpha == graph::AlphaMode::kStraight ? v1::ALPHA_MODE_STRAIGHT
                                                                  : v1::ALPHA_MODE_PREMULTIPLIED);
    const gpu::BufferSlice& pixels = staged_.outputs[i];
    if (png) {
      // Encoded straight from the memory the GPU downloaded into.
      const CpuStage stage;
      PngEncodeOptions options = translated_.output.png;
      options.threads =
          config_.png_encode_threads > 0
              ? config_.png_encode_threads
              : EncodeThreadsByLoad(stage.concurrent(), std::thread::hardware_concurrency());
      options.level1_deflate = config_.png_level1_deflate;
      absl::StatusOr<std::string> encoded = EncodeOutput(pixels, out, extent, options);
      if (!encoded.ok()) return encoded.status();
      image.set_encoding(v1::IMAGE_ENCODING_PNG);
      *image.mutable_data() = *std::move(encoded);
    } else if (hold) {
      // Raw, left where the GPU downloaded it: gRPC sends it from there
      // (service/process_wire.h), and the lease goes back once it has.
      image.set_encoding(RawEncoding(out.format));
      external_->held.emplace_back(
          static_cast<int>(i), std::span<const std::byte>(pixels.mapped, pixels.size));
    } else {
      // Raw: the one copy from the download memory into the response.
      const absl::Time copy_start = absl::Now();
      image.set_encoding(RawEncoding(out.format));
      image.mutable_data()->assign(reinterpret_cast<const char*>(pixels.mapped), pixels.size);
      download_ns_ += NanosSince(copy_start);
    }
  }
  if (hold && !external_->held.empty()) {
    external_->owner = std::make_shared<gpu::StagingLease>(std::move(readback_));
  }
  readback_.Release();
  encode_ns_ = NanosSince(start) - download_ns_;

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
  // The response holds everything the client gets: staging and the memory
  // reservation go back before the client can send its next request.
  upload_.Release();
  readback_.Release();
  memory_.Release();
  response_.set_id(id_);
  v1::StageTimings& stages = *response_.mutable_stages();
  stages.set_queue_ns(queue_ns());
  stages.set_decode_ns(decode_ns_);
  stages.set_compile_ns(compile_ns_);
  stages.set_upload_ns(upload_ns_);
  stages.set_submit_ns(run_.submit_ns);
  if (run_.gpu_ns) stages.set_gpu_ns(*run_.gpu_ns);
  stages.set_download_ns(download_ns_);
  stages.set_batch_requests(run_.batch_requests);
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
                  num("compile_ms", compile_ns_), num("upload_ms", upload_ns_),
                  Field("gpu_ms", run_.gpu_ns ? ms(static_cast<int64_t>(*run_.gpu_ns)) : "-"),
                  num("gpu_stage_ms", gpu_stage_ns_),
                  num("download_ms", download_ns_), num("encode_ms", encode_ns_),
                  num("total_ms", stages.total_ns()),
                  Field("status", std::string(absl::StatusCodeToString(status.code()))),
                  Field("error", std::string(status.message()))});
  if (done_) done_(status);
}

}  // namespace rgfx::service
