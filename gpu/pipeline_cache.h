// Compute pipelines from embedded SPIR-V, created on first use and kept for
// the device's lifetime, keyed by (shader, specialization constants). Each
// shader gets a push-descriptor set layout of N storage buffers and a
// push-constant range. A VkPipelineCache makes re-creation cheap and can be
// saved to and loaded from a file between runs.
#pragma once

#include <volk.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gpu/device.h"
#include "gpu/shader_code.h"

namespace rgfx::gpu {

struct ComputePipeline {
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  uint32_t num_buffers = 0;
  uint32_t push_constant_bytes = 0;
  // What the driver says about the compiled code where the device captures
  // statistics (DeviceCaps::pipeline_statistics), e.g. "Register Count 128";
  // empty otherwise.
  std::vector<std::string> statistics;
};

// One pipeline of the cache as a benchmark reports it.
struct PipelineReport {
  std::string shader;
  std::vector<uint32_t> spec;
  std::vector<std::string> statistics;
};

class PipelineCache {
 public:
  // `cache_file`, when not empty, is loaded now (a missing or foreign file is
  // ignored) and written by Save().
  static absl::StatusOr<std::unique_ptr<PipelineCache>> Create(Device& device,
                                                               std::string cache_file = "");
  ~PipelineCache();
  PipelineCache(const PipelineCache&) = delete;
  PipelineCache& operator=(const PipelineCache&) = delete;

  // Thread-safe. The returned pipeline lives as long as this cache. A
  // pipeline is created outside the cache's lock: callers asking for others
  // go on meanwhile, those asking for the same one wait for it.
  absl::StatusOr<const ComputePipeline*> Get(const ShaderCode& shader, const SpecConstants& spec);
  absl::Status Save() const;
  absl::Status SaveTo(const std::string& path) const;
  size_t size() const;  // pipelines created
  // Every pipeline created so far, in creation order.
  std::vector<PipelineReport> Reports() const;

  // Tests: called on the creating thread, outside the lock, before each
  // pipeline is created. Set before any Get.
  void set_before_create_for_testing(std::function<void(const ShaderCode&)> hook) {
    before_create_for_testing_ = std::move(hook);
  }

 private:
  explicit PipelineCache(Device& device) : device_(device) {}
  absl::StatusOr<std::unique_ptr<ComputePipeline>> CreatePipeline(const ShaderCode& shader,
                                                                  const SpecConstants& spec);

  // Keyed by the SPIR-V's address (embedded arrays are unique) and spec values.
  using Key = std::pair<const uint32_t*, std::vector<uint32_t>>;
  // One pipeline, present from the moment a Get starts creating it.
  struct Slot {
    absl::Notification created;
    std::unique_ptr<ComputePipeline> pipeline;  // set before `created` when made
    absl::Status status;                        // why not, otherwise
  };

  Device& device_;
  std::string cache_file_;
  VkPipelineCache vk_cache_ = VK_NULL_HANDLE;
  std::function<void(const ShaderCode&)> before_create_for_testing_;
  mutable absl::Mutex mu_;
  std::map<Key, std::shared_ptr<Slot>> pipelines_ ABSL_GUARDED_BY(mu_);
  std::vector<PipelineReport> reports_ ABSL_GUARDED_BY(mu_);
};

}  // namespace rgfx::gpu
