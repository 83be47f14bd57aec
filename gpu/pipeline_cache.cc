#include "gpu/pipeline_cache.h"

#include <fstream>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "gpu/vk_status.h"

namespace rgfx::gpu {
namespace {

std::string StatisticValue(const VkPipelineExecutableStatisticKHR& s) {
  switch (s.format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
      return s.value.b32 ? "true" : "false";
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
      return absl::StrCat(s.value.i64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
      return absl::StrCat(s.value.u64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
      return absl::StrCat(s.value.f64);
    default:
      return "?";
  }
}

// "name value" for every statistic of every executable of `pipeline` (a
// compute pipeline has one), prefixed with the executable's name where
// there are several. A driver that fails the query yields nothing: the
// statistics are for reading, never needed to run.
std::vector<std::string> ReadStatistics(VkDevice device, VkPipeline pipeline) {
  std::vector<std::string> out;
  VkPipelineInfoKHR info{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
  info.pipeline = pipeline;
  uint32_t count = 0;
  if (vkGetPipelineExecutablePropertiesKHR(device, &info, &count, nullptr) != VK_SUCCESS) return out;
  std::vector<VkPipelineExecutablePropertiesKHR> executables(
      count, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR});
  if (vkGetPipelineExecutablePropertiesKHR(device, &info, &count, executables.data()) != VK_SUCCESS) {
    return out;
  }
  for (uint32_t e = 0; e < count; ++e) {
    VkPipelineExecutableInfoKHR which{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
    which.pipeline = pipeline;
    which.executableIndex = e;
    uint32_t n = 0;
    if (vkGetPipelineExecutableStatisticsKHR(device, &which, &n, nullptr) != VK_SUCCESS) continue;
    std::vector<VkPipelineExecutableStatisticKHR> stats(
        n, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
    if (vkGetPipelineExecutableStatisticsKHR(device, &which, &n, stats.data()) != VK_SUCCESS) continue;
    const std::string prefix = count > 1 ? absl::StrCat(executables[e].name, ": ") : "";
    for (uint32_t i = 0; i < n; ++i) {
      out.push_back(absl::StrCat(prefix, stats[i].name, " ", StatisticValue(stats[i])));
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<PipelineCache>> PipelineCache::Create(Device& device,
                                                                     std::string cache_file) {
  std::unique_ptr<PipelineCache> self(new PipelineCache(device));
  self->cache_file_ = std::move(cache_file);
  std::vector<char> initial;
  if (!self->cache_file_.empty()) {
    std::ifstream in(self->cache_file_, std::ios::binary);
    if (in) initial.assign(std::istreambuf_iterator<char>(in), {});
  }
  VkPipelineCacheCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  info.initialDataSize = initial.size();
  info.pInitialData = initial.empty() ? nullptr : initial.data();
  // The driver checks the header (vendor, device, cache UUID) and ignores a
  // file made for another device or driver, so a stale file is harmless.
  VkResult result = vkCreatePipelineCache(device.vk(), &info, nullptr, &self->vk_cache_);
  if (result != VK_SUCCESS && !initial.empty()) {
    info.initialDataSize = 0;
    info.pInitialData = nullptr;
    result = vkCreatePipelineCache(device.vk(), &info, nullptr, &self->vk_cache_);
  }
  RGFX_VK_RETURN_IF_ERROR(result);
  return self;
}

PipelineCache::~PipelineCache() {
  VkDevice device = device_.vk();
  for (auto& [key, slot] : pipelines_) {
    const ComputePipeline* p = slot->pipeline.get();
    if (p == nullptr) continue;  // no Get is running while the cache is destroyed
    vkDestroyPipeline(device, p->pipeline, nullptr);
    vkDestroyPipelineLayout(device, p->layout, nullptr);
    vkDestroyDescriptorSetLayout(device, p->set_layout, nullptr);
  }
  if (vk_cache_ != VK_NULL_HANDLE) vkDestroyPipelineCache(device, vk_cache_, nullptr);
}

absl::StatusOr<const ComputePipeline*> PipelineCache::Get(const ShaderCode& shader,
                                                          const SpecConstants& spec) {
  Key key = std::make_pair(shader.spirv.data(), spec.values);
  std::shared_ptr<Slot> slot;
  bool creates = false;
  {
    absl::MutexLock lock(&mu_);
    std::shared_ptr<Slot>& entry = pipelines_[key];
    if (entry == nullptr) {
      entry = std::make_shared<Slot>();
      creates = true;
    }
    slot = entry;
  }
  if (!creates) {
    // Another thread is creating it (or has): wait for that, not for the lock.
    slot->created.WaitForNotification();
    if (!slot->status.ok()) return slot->status;
    return slot->pipeline.get();
  }
  // Created outside the lock: a driver compiles a large kernel for a second
  // or more, and lookups of pipelines that exist (every other worker's
  // recording) must not wait for that. VkPipelineCache is internally
  // synchronized, so creations of different pipelines run in parallel.
  if (before_create_for_testing_) before_create_for_testing_(shader);
  absl::StatusOr<std::unique_ptr<ComputePipeline>> made = CreatePipeline(shader, spec);
  {
    absl::MutexLock lock(&mu_);
    if (made.ok()) {
      slot->pipeline = *std::move(made);
      reports_.push_back({std::string(shader.name), spec.values, slot->pipeline->statistics});
    } else {
      slot->status = made.status();
      pipelines_.erase(key);  // a later call tries again
    }
  }
  slot->created.Notify();
  if (!slot->status.ok()) return slot->status;
  return slot->pipeline.get();
}

absl::StatusOr<std::unique_ptr<ComputePipeline>> PipelineCache::CreatePipeline(
    const ShaderCode& shader, const SpecConstants& spec) {
  VkDevice device = device_.vk();
  if (shader.push_constant_bytes > device_.caps().max_push_constants_bytes) {
    return absl::InternalError(absl::StrCat("shader ", std::string(shader.name), " needs ",
                                            shader.push_constant_bytes,
                                            " bytes of push constants; the device allows ",
                                            device_.caps().max_push_constants_bytes));
  }
  auto p = std::make_unique<ComputePipeline>();
  p->num_buffers = shader.num_buffers;
  p->push_constant_bytes = shader.push_constant_bytes;

  std::vector<VkDescriptorSetLayoutBinding> bindings(shader.num_buffers);
  for (uint32_t i = 0; i < shader.num_buffers; ++i) {
    bindings[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  }
  VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  set_info.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
  set_info.bindingCount = shader.num_buffers;
  set_info.pBindings = bindings.data();
  RGFX_VK_RETURN_IF_ERROR(vkCreateDescriptorSetLayout(device, &set_info, nullptr, &p->set_layout));

  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, shader.push_constant_bytes};
  VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout_info.setLayoutCount = 1;
  layout_info.pSetLayouts = &p->set_layout;
  layout_info.pushConstantRangeCount = shader.push_constant_bytes > 0 ? 1 : 0;
  layout_info.pPushConstantRanges = &range;
  RGFX_VK_RETURN_IF_ERROR(vkCreatePipelineLayout(device, &layout_info, nullptr, &p->layout));

  VkShaderModuleCreateInfo module_info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  module_info.codeSize = shader.spirv.size_bytes();
  module_info.pCode = shader.spirv.data();
  VkShaderModule module = VK_NULL_HANDLE;
  RGFX_VK_RETURN_IF_ERROR(vkCreateShaderModule(device, &module_info, nullptr, &module));

  std::vector<VkSpecializationMapEntry> entries(spec.values.size());
  for (uint32_t i = 0; i < entries.size(); ++i) {
    entries[i] = {i, i * static_cast<uint32_t>(sizeof(uint32_t)), sizeof(uint32_t)};
  }
  VkSpecializationInfo spec_info{static_cast<uint32_t>(entries.size()), entries.data(),
                                 spec.values.size() * sizeof(uint32_t), spec.values.data()};
  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module;
  info.stage.pName = "main";
  info.stage.pSpecializationInfo = entries.empty() ? nullptr : &spec_info;
  info.layout = p->layout;
  if (device_.caps().pipeline_statistics) info.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  const VkResult result = vkCreateComputePipelines(device, vk_cache_, 1, &info, nullptr,
                                                   &p->pipeline);
  vkDestroyShaderModule(device, module, nullptr);
  if (result != VK_SUCCESS) {
    vkDestroyPipelineLayout(device, p->layout, nullptr);
    vkDestroyDescriptorSetLayout(device, p->set_layout, nullptr);
    return VkStatus(result, absl::StrCat("creating the pipeline for shader ", std::string(shader.name)));
  }
  if (device_.caps().pipeline_statistics) p->statistics = ReadStatistics(device, p->pipeline);
  return p;
}

absl::Status PipelineCache::Save() const {
  if (cache_file_.empty()) return absl::OkStatus();
  return SaveTo(cache_file_);
}

absl::Status PipelineCache::SaveTo(const std::string& path) const {
  size_t size = 0;
  RGFX_VK_RETURN_IF_ERROR(vkGetPipelineCacheData(device_.vk(), vk_cache_, &size, nullptr));
  std::vector<char> data(size);
  RGFX_VK_RETURN_IF_ERROR(vkGetPipelineCacheData(device_.vk(), vk_cache_, &size, data.data()));
  // Write beside and rename, so a crash never leaves half a file.
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(size));
    if (!out) return absl::UnavailableError(absl::StrCat("cannot write pipeline cache ", tmp));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return absl::UnavailableError(absl::StrCat("cannot rename ", tmp, " to ", path));
  }
  return absl::OkStatus();
}

std::vector<PipelineReport> PipelineCache::Reports() const {
  absl::MutexLock lock(&mu_);
  return reports_;
}

size_t PipelineCache::size() const {
  absl::MutexLock lock(&mu_);
  return reports_.size();
}

}  // namespace rgfx::gpu
