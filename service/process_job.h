// One Process request as a scheduler Job: translate, compile and decode on
// the CPU pool; upload, run and download on a GPU worker; encode and fill the
// response on the CPU pool; then one log line and the caller's callback.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "rgfx/v1/post_process.pb.h"
#include "service/engine.h"
#include "service/external_images.h"
#include "service/scheduler.h"
#include "service/translate.h"

namespace rgfx::service {

// Who filters the scanlines of PNG outputs (graph::OutputDesc::png_rows).
enum class GpuPngRows {
  kAuto,  // the GPU where it is one; the CPU on a CPU device (lavapipe),
          // where the shader would run on the same cores, ~20x slower than
          // the SIMD filter (a 1080p export +80 ms for -4 ms of encode)
  kOn,    // the GPU wherever it has 8-bit storage buffers (tests on lavapipe)
  kOff,   // the CPU
};

// Whether requests on a device with `caps` get their PNG rows from the GPU.
bool GpuFiltersPngRows(GpuPngRows mode, const gpu::DeviceCaps& caps);

struct ServiceConfig {
  RequestLimits limits;
  uint64_t max_message_bytes = 64ull << 20;
  int max_in_flight = 8;
  int max_queued = 32;
  int max_batch = 8;                                     // requests per GPU submission
  absl::Duration batch_delay = absl::Microseconds(500);  // longest wait to fill a batch
  // PNG outputs the fast encoder writes from adaptively filtered rows get
  // those rows from the GPU (the export filters them: graph::OutputDesc::
  // png_rows), on devices with 8-bit storage; the CPU only deflates.
  GpuPngRows gpu_png_rows = GpuPngRows::kAuto;
  // Threads one PNG encode is split over; 0: by load (EncodeThreadsByLoad).
  int png_encode_threads = 0;
  // PNG level 1's deflate (PngEncodeOptions::level1_deflate).
  DeflateMethod png_level1_deflate = DeflateMethod::kSmallerOnSample;
};

class ProcessJob final : public Job {
 public:
  // `request` and `response` outlive the job (the RPC owns them). `alive`
  // says whether the client still waits (not cancelled); `done` is called
  // once with the outcome, after the response is filled. `external` (may be
  // null; outlives the job too): image bytes kept outside the messages, read
  // for the inputs and filled with the raw outputs.
  ProcessJob(Engine& engine, const ServiceConfig& config, const v1::ProcessRequest& request,
             v1::ProcessResponse& response, absl::Time deadline, std::function<bool()> cancelled,
             std::function<void(const absl::Status&)> done, ExternalImages* external = nullptr);

  absl::Status CheckAlive() override;
  absl::Status Prepare() override;
  absl::Status RunGpu(int worker) override;
  std::string BatchKey() const override { return batch_key_; }
  std::vector<absl::Status> RunGpuBatch(int worker, std::span<Job* const> batch) override;
  absl::Status Finish() override;
  void Done(const absl::Status& status) override;

  const std::string& id() const { return id_; }
  void set_id(std::string id) { id_ = std::move(id); }

 private:
  Engine& engine_;
  const ServiceConfig& config_;
  const v1::ProcessRequest& request_;
  v1::ProcessResponse& response_;
  ExternalImages* const external_;
  const absl::Time deadline_;
  std::function<bool()> cancelled_;
  std::function<void(const absl::Status&)> done_;
  const absl::Time arrival_;
  std::string id_;

  TranslatedRequest translated_;
  std::string graph_hash_;
  bool cache_hit_ = false;
  std::shared_ptr<const graph::CompiledGraph> compiled_;
  // Staging owned by this request (DESIGN.md §9): inputs are decoded (PNG)
  // or copied (raw) straight into upload_, the GPU copies from there and
  // downloads into readback_, and PNG outputs are encoded from there.
  absl::Status StageInputs();
  absl::Status StageOutputs();
  graph::FillInputFn FillFromStaging() const;
  absl::Status ReserveMemory();
  MemoryBudget::Reservation memory_;
  gpu::StagingLease upload_;
  gpu::StagingLease readback_;
  graph::StagedRun staged_;
  std::string batch_key_;  // "" = never batched
  graph::RunResult run_;
  // Options.report_error (post_process.proto): the approximate passes, the
  // graph whose outputs are compared (null: the returned run's outputs are
  // already RGBA32F linear premultiplied) and the exact reference, and their
  // downloaded outputs as floats.
  absl::Status PrepareErrorRuns();
  absl::Status RunErrorRuns(int worker, const graph::FillInputFn& fill);
  std::vector<std::string> approximate_passes_;
  std::shared_ptr<const graph::CompiledGraph> error_measured_;
  std::shared_ptr<const graph::CompiledGraph> error_reference_;
  std::vector<std::vector<float>> measured_values_;
  std::vector<std::vector<float>> reference_values_;
  int64_t decode_ns_ = 0, compile_ns_ = 0, encode_ns_ = 0, gpu_stage_ns_ = 0;
  int64_t upload_ns_ = 0, download_ns_ = 0;
};

// A request id for requests that came without one.
std::string NewRequestId();

}  // namespace rgfx::service
