#include "gpu/device.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gpu/device_choice.h"
#include "gpu/vk_status.h"

namespace rgfx::gpu {
namespace {

std::string TypeName(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "cpu";
    default:
      return "other";
  }
}

std::string VersionString(uint32_t v) {
  return absl::StrFormat("%u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v),
                         VK_API_VERSION_PATCH(v));
}

std::vector<VkQueueFamilyProperties> QueueFamilies(VkPhysicalDevice physical) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families.data());
  return families;
}

// A compute-only family when there is one (it is free of graphics work),
// otherwise any family with compute; families with timestamps first.
int PickComputeFamily(VkPhysicalDevice physical) {
  const auto families = QueueFamilies(physical);
  int best = -1;
  int best_score = -1;
  for (size_t i = 0; i < families.size(); ++i) {
    const auto& f = families[i];
    if (!(f.queueFlags & VK_QUEUE_COMPUTE_BIT) || f.queueCount == 0) continue;
    int score = 0;
    if (f.timestampValidBits > 0) score += 2;
    if (!(f.queueFlags & VK_QUEUE_GRAPHICS_BIT)) score += 1;
    if (score > best_score) {
      best = static_cast<int>(i);
      best_score = score;
    }
  }
  return best;
}

bool HasExtension(VkPhysicalDevice physical, const char* name) {
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, extensions.data());
  for (const auto& e : extensions) {
    if (std::strcmp(e.extensionName, name) == 0) return true;
  }
  return false;
}

// Whether the matrix units take 16×16×16 products of fp16 matrices with fp32
// accumulation per subgroup (VK_NV_cooperative_matrix), the shape the
// tensor path of gaussian_blur "fast" is written for.
bool HasF16MatrixProduct16(VkPhysicalDevice physical) {
  if (!HasExtension(physical, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME) ||
      vkGetPhysicalDeviceCooperativeMatrixPropertiesNV == nullptr) {
    return false;
  }
  uint32_t count = 0;
  vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(physical, &count, nullptr);
  std::vector<VkCooperativeMatrixPropertiesNV> shapes(
      count, {VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV});
  vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(physical, &count, shapes.data());
  for (const auto& s : shapes) {
    if (s.MSize == 16 && s.NSize == 16 && s.KSize == 16 && s.AType == VK_COMPONENT_TYPE_FLOAT16_NV &&
        s.BType == VK_COMPONENT_TYPE_FLOAT16_NV && s.CType == VK_COMPONENT_TYPE_FLOAT32_NV &&
        s.DType == VK_COMPONENT_TYPE_FLOAT32_NV && s.scope == VK_SCOPE_SUBGROUP_NV) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<DeviceCandidate> ListDeviceCandidates(Instance& instance) {
  std::vector<DeviceCandidate> candidates;
  for (VkPhysicalDevice p : instance.PhysicalDevices()) {
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(p, &props);
    candidates.push_back({props.deviceName, TypeName(props.deviceType), PickComputeFamily(p) >= 0});
  }
  return candidates;
}

absl::StatusOr<std::unique_ptr<Device>> Device::Create(Instance& instance,
                                                        const DeviceOptions& options) {
  const auto physicals = instance.PhysicalDevices();
  const std::vector<DeviceCandidate> candidates = ListDeviceCandidates(instance);
  RGFX_ASSIGN_OR_RETURN(const int chosen, ChooseDevice(candidates, options.override_spec));
  VkPhysicalDevice physical = physicals[chosen];
  // What rgfx cannot run without, named so an operator knows what to change.
  VkPhysicalDeviceProperties basic;
  vkGetPhysicalDeviceProperties(physical, &basic);
  RGFX_RETURN_IF_ERROR(CheckDeviceSupport(
      {.name = candidates[chosen].name,
       .api_version = basic.apiVersion,
       .has_compute_queue = candidates[chosen].has_compute_queue,
       .push_descriptors = HasExtension(physical, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME)}));

  std::unique_ptr<Device> self(new Device(instance));
  self->physical_ = physical;
  self->queue_family_ = static_cast<uint32_t>(PickComputeFamily(physical));

  // Properties: core, subgroup (1.1) and driver (1.2).
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  subgroup.pNext = &driver;
  VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props2.pNext = &subgroup;
  vkGetPhysicalDeviceProperties2(physical, &props2);
  const VkPhysicalDeviceLimits& limits = props2.properties.limits;

  VkPhysicalDeviceMaintenance3Properties maint3{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
  // The multiprocessor count, where the device offers the extension that
  // tells it (its properties need no enabling).
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
  const bool sm_extension = HasExtension(physical, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
  if (sm_extension) maint3.pNext = &sm;
  VkPhysicalDeviceProperties2 props_m3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props_m3.pNext = &maint3;
  vkGetPhysicalDeviceProperties2(physical, &props_m3);

  DeviceCaps& caps = self->caps_;
  caps.name = props2.properties.deviceName;
  caps.type = TypeName(props2.properties.deviceType);
  caps.driver = absl::StrCat(driver.driverName, " ", driver.driverInfo);
  caps.api_version = VersionString(props2.properties.apiVersion);
  caps.vendor_id = props2.properties.vendorID;
  caps.device_id = props2.properties.deviceID;
  caps.multiprocessors = sm_extension ? sm.shaderSMCount : 0;
  caps.max_storage_buffer_range = limits.maxStorageBufferRange;
  caps.max_memory_allocation_size = maint3.maxMemoryAllocationSize;
  {
    VkPhysicalDeviceMemoryProperties memory;
    vkGetPhysicalDeviceMemoryProperties(physical, &memory);
    caps.device_local_heap_bytes = 0;
    for (uint32_t i = 0; i < memory.memoryHeapCount; ++i) {
      if (memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) {
        caps.device_local_heap_bytes =
            std::max<uint64_t>(caps.device_local_heap_bytes, memory.memoryHeaps[i].size);
      }
    }
  }
  caps.max_compute_shared_memory_bytes = limits.maxComputeSharedMemorySize;
  caps.max_workgroup_invocations = limits.maxComputeWorkGroupInvocations;
  for (int i = 0; i < 3; ++i) {
    caps.max_workgroup_size[i] = limits.maxComputeWorkGroupSize[i];
    caps.max_workgroup_count[i] = limits.maxComputeWorkGroupCount[i];
  }
  caps.max_push_constants_bytes = limits.maxPushConstantsSize;
  caps.min_storage_buffer_offset_alignment =
      static_cast<uint32_t>(limits.minStorageBufferOffsetAlignment);
  caps.subgroup_size = subgroup.subgroupSize;
  caps.subgroup_shuffle_relative =
      (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0 &&
      (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT) != 0;
  const auto families = QueueFamilies(physical);
  caps.timestamp_valid_bits = families[self->queue_family_].timestampValidBits;
  caps.timestamp_period_ns = limits.timestampPeriod;
  caps.timestamps_supported = caps.timestamp_valid_bits > 0 && limits.timestampPeriod > 0;

  // Features: 16-bit floats in shaders and 16-bit storage when present (the
  // fast variants use them; the exact ones do not need them).
  VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceCooperativeMatrixFeaturesNV fmatrix{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR fexecutable{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  VkPhysicalDeviceShaderClockFeaturesKHR fclock{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR};
  VkPhysicalDeviceShaderSMBuiltinsFeaturesNV fsm{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_FEATURES_NV};
  const bool clock_extension =
      options.shader_clock && HasExtension(physical, VK_KHR_SHADER_CLOCK_EXTENSION_NAME);
  const bool sm_builtins_extension = clock_extension && sm_extension;
  const bool matrix_extension = HasExtension(physical, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  const bool executable_extension =
      HasExtension(physical, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  f11.pNext = &f12;
  f12.pNext = &fexecutable;
  if (matrix_extension) fexecutable.pNext = &fmatrix;
  // Only the structures of extensions the device has join the chain.
  if (clock_extension) {
    fclock.pNext = f11.pNext;
    f11.pNext = &fclock;
  }
  if (sm_builtins_extension) {
    fsm.pNext = f11.pNext;
    f11.pNext = &fsm;
  }
  VkPhysicalDeviceFeatures2 supported{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  supported.pNext = &f11;
  vkGetPhysicalDeviceFeatures2(physical, &supported);
  caps.shader_float16 = f12.shaderFloat16 && f11.storageBuffer16BitAccess;
  caps.storage_int8 = f12.storageBuffer8BitAccess && f12.shaderInt8;
  // The matrix shader is written for 32-wide subgroups and fp16 storage.
  // GL_NV_cooperative_matrix's scopes come with the Vulkan memory model. Its
  // RGBA32F build votes and reduces across the subgroup (each block's band).
  constexpr VkSubgroupFeatureFlags kMatrixSubgroupOps =
      VK_SUBGROUP_FEATURE_VOTE_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
  const bool matrix_subgroup_ops = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0 &&
                                   (subgroup.supportedOperations & kMatrixSubgroupOps) == kMatrixSubgroupOps;
  caps.f16_matrix_product_16 = options.matrix_units && matrix_extension && fmatrix.cooperativeMatrix &&
                               caps.shader_float16 && caps.subgroup_size == 32 &&
                               f12.vulkanMemoryModel && matrix_subgroup_ops &&
                               HasF16MatrixProduct16(physical);
  caps.pipeline_statistics = options.pipeline_statistics && executable_extension &&
                             fexecutable.pipelineExecutableInfo;
  caps.shader_clock = clock_extension && fclock.shaderSubgroupClock && fclock.shaderDeviceClock;
  caps.sm_builtins = caps.shader_clock && sm_builtins_extension && fsm.shaderSMBuiltins;

  VkPhysicalDeviceVulkan11Features en11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features en12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  en11.pNext = &en12;
  en11.storageBuffer16BitAccess = f11.storageBuffer16BitAccess;
  en12.shaderFloat16 = f12.shaderFloat16;
  en12.storageBuffer8BitAccess = f12.storageBuffer8BitAccess;
  en12.shaderInt8 = f12.shaderInt8;
  VkPhysicalDeviceFeatures2 enabled{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  enabled.pNext = &en11;
  enabled.features.shaderInt64 = supported.features.shaderInt64;
  VkPhysicalDeviceCooperativeMatrixFeaturesNV enmatrix{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  enmatrix.cooperativeMatrix = VK_TRUE;
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR enexecutable{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  enexecutable.pipelineExecutableInfo = VK_TRUE;
  std::vector<const char*> extensions = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
  void** next = &en12.pNext;
  if (caps.f16_matrix_product_16) {
    *next = &enmatrix;
    next = &enmatrix.pNext;
    en12.vulkanMemoryModel = VK_TRUE;
    extensions.push_back(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  }
  if (caps.pipeline_statistics) {
    *next = &enexecutable;
    next = &enexecutable.pNext;
    extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  }
  VkPhysicalDeviceShaderClockFeaturesKHR enclock{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR};
  VkPhysicalDeviceShaderSMBuiltinsFeaturesNV ensm{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_FEATURES_NV};
  if (caps.shader_clock) {
    enclock.shaderSubgroupClock = VK_TRUE;
    enclock.shaderDeviceClock = VK_TRUE;
    *next = &enclock;
    next = &enclock.pNext;
    extensions.push_back(VK_KHR_SHADER_CLOCK_EXTENSION_NAME);
  }
  if (caps.sm_builtins) {
    ensm.shaderSMBuiltins = VK_TRUE;
    *next = &ensm;
    next = &ensm.pNext;
    extensions.push_back(VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
  }

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = self->queue_family_;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.pNext = &enabled;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue_info;
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  RGFX_VK_RETURN_IF_ERROR(vkCreateDevice(physical, &info, nullptr, &self->device_));
  volkLoadDevice(self->device_);
  vkGetDeviceQueue(self->device_, self->queue_family_, 0, &self->queue_);
  vkGetPhysicalDeviceMemoryProperties(physical, &self->memory_);
  return self;
}

Device::~Device() {
  if (device_ != VK_NULL_HANDLE) {
    vkDeviceWaitIdle(device_);
    vkDestroyDevice(device_, nullptr);
  }
}

std::string Device::Describe() const {
  return absl::StrCat(caps_.name, " (", caps_.type, "), driver ", caps_.driver, ", Vulkan ",
                      caps_.api_version, ", queue family ", queue_family_,
                      caps_.timestamps_supported ? ", timestamps" : ", no timestamps",
                      caps_.f16_matrix_product_16 ? ", matrix units (fp16 16x16x16)" : "",
                      caps_.multiprocessors > 0
                          ? absl::StrCat(", ", caps_.multiprocessors, " multiprocessors")
                          : "",
                      caps_.pipeline_statistics ? ", pipeline statistics" : "");
}

VkResult Device::Submit(const VkSubmitInfo& submit, VkFence fence) {
  absl::MutexLock lock(&queue_mu_);
  return vkQueueSubmit(queue_, 1, &submit, fence);
}

int Device::FindMemoryType(uint32_t type_bits, VkMemoryPropertyFlags required,
                           VkMemoryPropertyFlags preferred) const {
  int fallback = -1;
  for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
    if (!(type_bits & (1u << i))) continue;
    const VkMemoryPropertyFlags flags = memory_.memoryTypes[i].propertyFlags;
    if ((flags & required) != required) continue;
    if ((flags & preferred) == preferred) return static_cast<int>(i);
    if (fallback < 0) fallback = static_cast<int>(i);
  }
  return fallback;
}

}  // namespace rgfx::gpu
