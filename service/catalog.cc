#include "service/catalog.h"

#include "absl/strings/str_cat.h"
#include "passes/gaussian_blur.h"

namespace rgfx::service {

void FillPassInfo(const graph::PassType& type, v1::PassInfo& info) {
  const graph::PassSchema& schema = type.schema();
  info.set_name(std::string(type.name()));
  info.set_doc(schema.doc);
  for (const std::string& name : schema.input_names) info.add_inputs(name);
  info.set_min_inputs(schema.min_inputs);
  for (const std::string& name : schema.output_names) info.add_outputs(name);
  for (const graph::ParamSpec& spec : schema.params) {
    v1::ParamInfo& param = *info.add_params();
    param.set_name(spec.name);
    param.set_type(graph::ParamTypeName(spec.type));
    param.set_doc(spec.doc);
    if (spec.default_value) param.set_default_value(graph::ParamValueToString(*spec.default_value));
    param.set_min(spec.min);
    param.set_max(spec.max);
    for (const std::string& value : spec.enum_values) param.add_enum_values(value);
    if (spec.name == schema.variant_param) {
      for (const std::string& value : spec.enum_values) info.add_variants(value);
    }
  }
  for (const std::string& note : schema.notes) info.add_notes(note);
}

std::vector<std::string> DeviceTuningNotes(std::string_view type, const gpu::DeviceCaps& caps) {
  if (type == "gaussian_blur") return passes::BlurDeviceNotes(caps);
  return {};
}

v1::ListPassesResponse BuildCatalog(const graph::PassRegistry& registry,
                                    const gpu::DeviceCaps& caps) {
  v1::ListPassesResponse response;
  for (const graph::PassType* type : registry.All()) {
    if (type->name() == graph::kImportPassType || type->name() == graph::kExportPassType) continue;
    v1::PassInfo& info = *response.add_passes();
    FillPassInfo(*type, info);
    for (const std::string& note : DeviceTuningNotes(type->name(), caps)) info.add_notes(note);
  }
  return response;
}

v1::DeviceInfo BuildDeviceInfo(const Engine& engine, const ServiceConfig& config, int workers) {
  const gpu::DeviceCaps& caps = engine.caps();
  v1::DeviceInfo info;
  info.set_name(caps.name);
  info.set_type(caps.type);
  info.set_driver(caps.driver);
  info.set_api_version(caps.api_version);
  info.set_vendor_id(caps.vendor_id);
  info.set_device_id(caps.device_id);
  info.set_timestamps_supported(caps.timestamps_supported);
  info.set_timestamp_period_ns(caps.timestamp_period_ns);
  info.set_subgroup_size(caps.subgroup_size);
  info.set_max_compute_shared_memory_bytes(caps.max_compute_shared_memory_bytes);
  info.set_max_workgroup_invocations(caps.max_workgroup_invocations);
  info.set_max_storage_buffer_range(caps.max_storage_buffer_range);
  info.set_shader_float16(caps.shader_float16);
  info.set_matrix_units(caps.f16_matrix_product_16);
  info.set_default_working_format(config.limits.default_working_format ==
                                          graph::PixelFormat::kRgba32F
                                      ? v1::WORKING_FORMAT_RGBA32F
                                      : v1::WORKING_FORMAT_RGBA16F);
  v1::Limits& limits = *info.mutable_limits();
  limits.set_max_pixels(config.limits.max_pixels);
  limits.set_max_message_bytes(config.max_message_bytes);
  limits.set_max_passes(config.limits.max_passes);
  limits.set_max_gpu_repeats(config.limits.max_gpu_repeats);
  limits.set_max_radius(passes::kMaxBlurRadius);
  limits.set_max_queued(config.max_queued);
  limits.set_max_in_flight(config.max_in_flight);
  limits.set_workers(workers);
  limits.set_host_memory_budget_bytes(engine.memory_budget().host_budget());
  limits.set_gpu_memory_budget_bytes(engine.memory_budget().gpu_budget());
  limits.set_max_batch(config.max_batch);
  info.set_validation(engine.validation_enabled());
  info.set_server_version("rgfx 0.1");
  for (const graph::PassType* type : engine.registry().All()) {
    for (const std::string& note : DeviceTuningNotes(type->name(), caps)) {
      info.add_tuning_notes(absl::StrCat(std::string(type->name()), ": ", note));
    }
  }
  return info;
}

}  // namespace rgfx::service
