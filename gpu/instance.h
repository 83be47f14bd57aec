// The Vulkan instance, loaded through volk, with optional validation
// (VK_LAYER_KHRONOS_validation plus synchronization validation) whose
// messages are collected in a ValidationLog.
#pragma once

#include <volk.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "gpu/caps.h"

namespace rgfx::gpu {

// Validation messages at warning level or above. Tests fail when any arrive.
class ValidationLog {
 public:
  void Add(std::string message);
  std::vector<std::string> Take();  // returns and clears
  size_t count() const;

 private:
  mutable absl::Mutex mu_;
  std::vector<std::string> messages_ ABSL_GUARDED_BY(mu_);
};

struct InstanceOptions {
  // Turns on the validation layer with synchronization validation. The
  // environment variable RGFX_VALIDATION=1 turns it on too.
  bool validation = false;
  // Print each validation message to stderr as it arrives.
  bool print_messages = true;
};

// What to check when no Vulkan driver answers: the ICD files, the container
// runtime's driver capability, vulkaninfo. Part of every "no driver" error.
std::string VulkanDriverHelp();

class Instance {
 public:
  static absl::StatusOr<std::unique_ptr<Instance>> Create(const InstanceOptions& options);
  ~Instance();
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  VkInstance vk() const { return instance_; }
  bool validation_enabled() const { return messenger_ != VK_NULL_HANDLE; }
  ValidationLog& validation_log() { return log_; }
  std::vector<VkPhysicalDevice> PhysicalDevices() const;

 private:
  Instance() = default;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  bool print_messages_ = true;
  ValidationLog log_;
  static VKAPI_ATTR VkBool32 VKAPI_CALL OnMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                  VkDebugUtilsMessageTypeFlagsEXT types,
                                                  const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                  void* user);
};

}  // namespace rgfx::gpu
