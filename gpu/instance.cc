#include "gpu/instance.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "gpu/vk_status.h"

namespace rgfx::gpu {
namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

bool EnvFlag(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && (std::string_view(value) == "1" || std::string_view(value) == "true");
}

bool HasLayer(const char* name) {
  uint32_t count = 0;
  vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> layers(count);
  vkEnumerateInstanceLayerProperties(&count, layers.data());
  for (const auto& layer : layers) {
    if (std::strcmp(layer.layerName, name) == 0) return true;
  }
  return false;
}

std::string EnvValue(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

}  // namespace

std::string VulkanDriverHelp() {
  std::string searched = "/usr/share/vulkan/icd.d and /etc/vulkan/icd.d";
  for (const char* name : {"VK_DRIVER_FILES", "VK_ICD_FILENAMES"}) {
    // The loader reads only these files when either variable is set.
    if (const std::string value = EnvValue(name); !value.empty()) {
      searched = absl::StrCat(name, "=", value);
      break;
    }
  }
  return absl::StrCat(
      "the Vulkan loader found no driver (ICD JSON files searched: ", searched,
      "). Install one: the GPU vendor's driver, or Mesa's CPU driver lavapipe (Debian: "
      "mesa-vulkan-drivers). In a container on an NVIDIA GPU the runtime mounts the Vulkan "
      "driver only with the 'graphics' driver capability: set "
      "NVIDIA_DRIVER_CAPABILITIES=compute,utility,graphics. Check with `vulkaninfo --summary` "
      "(Debian: vulkan-tools) and `ls /usr/share/vulkan/icd.d /etc/vulkan/icd.d`");
}

void ValidationLog::Add(std::string message) {
  absl::MutexLock lock(&mu_);
  messages_.push_back(std::move(message));
}

std::vector<std::string> ValidationLog::Take() {
  absl::MutexLock lock(&mu_);
  return std::exchange(messages_, {});
}

size_t ValidationLog::count() const {
  absl::MutexLock lock(&mu_);
  return messages_.size();
}

VKAPI_ATTR VkBool32 VKAPI_CALL Instance::OnMessage(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT,
    const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  auto* self = static_cast<Instance*>(user);
  const char* level =
      (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? "error" : "warning";
  std::string message = absl::StrCat("validation ", level, ": ",
                                     data->pMessageIdName ? data->pMessageIdName : "", ": ",
                                     data->pMessage ? data->pMessage : "");
  if (self->print_messages_) std::fprintf(stderr, "%s\n", message.c_str());
  self->log_.Add(std::move(message));
  return VK_FALSE;  // never abort the call: we report, the caller decides
}

absl::StatusOr<std::unique_ptr<Instance>> Instance::Create(const InstanceOptions& options) {
  if (volkInitialize() != VK_SUCCESS) {
    return absl::FailedPreconditionError(
        "no Vulkan loader: libvulkan.so.1 cannot be loaded (Debian: libvulkan1)");
  }
  std::unique_ptr<Instance> self(new Instance());
  self->print_messages_ = options.print_messages;
  const bool validation = options.validation || EnvFlag("RGFX_VALIDATION");
  if (validation && !HasLayer(kValidationLayer)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "validation was requested but ", kValidationLayer,
        " is not installed (Debian: vulkan-validationlayers)"));
  }

  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "rgfx";
  app.pEngineName = "rgfx";
  app.apiVersion = VK_API_VERSION_1_2;

  std::vector<const char*> layers;
  std::vector<const char*> extensions;
  // Synchronization validation checks our barriers; GPU-assisted validation
  // stays off (it rewrites shaders and changes timings).
  VkValidationFeatureEnableEXT enables[] = {
      VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = enables;

  VkDebugUtilsMessengerCreateInfoEXT messenger_info{
      VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  messenger_info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                                   VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger_info.pfnUserCallback = &Instance::OnMessage;
  messenger_info.pUserData = self.get();

  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  if (validation) {
    layers.push_back(kValidationLayer);
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
    // Chain: instance → validation features → messenger (so creation and
    // destruction of the instance are reported too).
    features.pNext = &messenger_info;
    info.pNext = &features;
  }
  info.enabledLayerCount = static_cast<uint32_t>(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  if (VkResult r = vkCreateInstance(&info, nullptr, &self->instance_); r != VK_SUCCESS) {
    // The loader answers INCOMPATIBLE_DRIVER when it found no usable ICD.
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER) {
      return absl::FailedPreconditionError(
          absl::StrCat("no Vulkan driver: vkCreateInstance returned "
                       "VK_ERROR_INCOMPATIBLE_DRIVER; ", VulkanDriverHelp()));
    }
    return VkStatus(r, "vkCreateInstance");
  }
  volkLoadInstance(self->instance_);
  if (validation) {
    RGFX_VK_RETURN_IF_ERROR(vkCreateDebugUtilsMessengerEXT(self->instance_, &messenger_info,
                                                           nullptr, &self->messenger_));
  }
  return self;
}

Instance::~Instance() {
  if (messenger_ != VK_NULL_HANDLE) vkDestroyDebugUtilsMessengerEXT(instance_, messenger_, nullptr);
  if (instance_ != VK_NULL_HANDLE) vkDestroyInstance(instance_, nullptr);
}

std::vector<VkPhysicalDevice> Instance::PhysicalDevices() const {
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(instance_, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  vkEnumeratePhysicalDevices(instance_, &count, devices.data());
  devices.resize(count);
  return devices;
}

}  // namespace rgfx::gpu
