// The proto (passes.proto, graph.proto's Pass.params) and the pass registry
// describe the same passes and parameters: the service translates one into
// the other by name (service/translate.h), so a field the registry does not
// know, or a parameter the proto cannot carry, would only show up as a
// client's INVALID_ARGUMENT. No GPU: schemas are plain data.
#include <algorithm>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "graph/registry.h"
#include "passes/builtin_passes.h"
#include "rgfx/v1/graph.pb.h"
#include "service/translate.h"

namespace rgfx::service {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

bool IsInternal(std::string_view type) {
  return type == graph::kImportPassType || type == graph::kExportPassType;
}

// Whether a proto field can carry a parameter of `type` (translate.cc's
// ParamsFromMessage: integers become kInt, float/double kFloat, ...).
bool Compatible(graph::ParamType type, const FieldDescriptor& field) {
  if (field.is_repeated()) return false;
  switch (type) {
    case graph::ParamType::kInt:
      return field.cpp_type() == FieldDescriptor::CPPTYPE_INT32 ||
             field.cpp_type() == FieldDescriptor::CPPTYPE_INT64 ||
             field.cpp_type() == FieldDescriptor::CPPTYPE_UINT32 ||
             field.cpp_type() == FieldDescriptor::CPPTYPE_UINT64;
    case graph::ParamType::kFloat:
      return field.cpp_type() == FieldDescriptor::CPPTYPE_FLOAT ||
             field.cpp_type() == FieldDescriptor::CPPTYPE_DOUBLE;
    case graph::ParamType::kBool: return field.cpp_type() == FieldDescriptor::CPPTYPE_BOOL;
    case graph::ParamType::kEnum: return field.cpp_type() == FieldDescriptor::CPPTYPE_ENUM;
  }
  return false;
}

// The graph's names of an enum's values, *_UNSPECIFIED excluded.
std::set<std::string> ProtoEnumValues(const FieldDescriptor& field) {
  std::set<std::string> values;
  const google::protobuf::EnumDescriptor& type = *field.enum_type();
  for (int i = 0; i < type.value_count(); ++i) {
    if (type.value(i)->number() == 0) continue;
    absl::StatusOr<std::string> name = EnumValueParamName(*type.value(i));
    EXPECT_TRUE(name.ok()) << name.status();
    if (name.ok()) values.insert(*name);
  }
  return values;
}

class ProtoRegistry : public ::testing::Test {
 protected:
  ProtoRegistry() { passes::RegisterBuiltinPasses(registry_); }
  graph::PassRegistry registry_;
  const google::protobuf::OneofDescriptor& params_ =
      *v1::Pass::descriptor()->FindOneofByName("params");
};

TEST_F(ProtoRegistry, EveryPassTypeHasAParamsField) {
  for (const graph::PassType* type : registry_.All()) {
    if (IsInternal(type->name())) continue;
    const FieldDescriptor* field =
        v1::Pass::descriptor()->FindFieldByName(std::string(type->name()));
    ASSERT_NE(field, nullptr) << "Pass has no field '" << type->name() << "'";
    EXPECT_EQ(field->containing_oneof(), &params_) << type->name();
    EXPECT_EQ(field->cpp_type(), FieldDescriptor::CPPTYPE_MESSAGE) << type->name();
  }
}

TEST_F(ProtoRegistry, EveryParamsFieldIsARegisteredType) {
  for (int i = 0; i < params_.field_count(); ++i) {
    const std::string& name = params_.field(i)->name();
    EXPECT_NE(registry_.Find(name), nullptr) << "Pass." << name << " is no registered pass type";
    EXPECT_FALSE(IsInternal(name)) << "Pass." << name << " names an internal type";
  }
}

TEST_F(ProtoRegistry, EveryParamSpecHasACompatibleField) {
  for (const graph::PassType* type : registry_.All()) {
    if (IsInternal(type->name())) continue;
    const FieldDescriptor* params = v1::Pass::descriptor()->FindFieldByName(std::string(type->name()));
    ASSERT_NE(params, nullptr);
    const Descriptor& message = *params->message_type();
    for (const graph::ParamSpec& spec : type->schema().params) {
      SCOPED_TRACE(::testing::Message() << type->name() << "." << spec.name);
      const FieldDescriptor* field = message.FindFieldByName(spec.name);
      ASSERT_NE(field, nullptr) << message.full_name() << " has no field '" << spec.name << "'";
      EXPECT_TRUE(Compatible(spec.type, *field))
          << "a " << graph::ParamTypeName(spec.type) << " parameter in a "
          << field->cpp_type_name() << " field";
      if (spec.type == graph::ParamType::kEnum && field->enum_type() != nullptr) {
        const std::set<std::string> expected(spec.enum_values.begin(), spec.enum_values.end());
        EXPECT_EQ(ProtoEnumValues(*field), expected) << field->enum_type()->full_name();
      }
    }
  }
}

TEST_F(ProtoRegistry, EveryFieldIsAParamSpec) {
  for (const graph::PassType* type : registry_.All()) {
    if (IsInternal(type->name())) continue;
    const FieldDescriptor* params = v1::Pass::descriptor()->FindFieldByName(std::string(type->name()));
    ASSERT_NE(params, nullptr);
    const Descriptor& message = *params->message_type();
    const std::vector<graph::ParamSpec>& specs = type->schema().params;
    for (int i = 0; i < message.field_count(); ++i) {
      const std::string& name = message.field(i)->name();
      EXPECT_TRUE(std::any_of(specs.begin(), specs.end(),
                              [&](const graph::ParamSpec& s) { return s.name == name; }))
          << message.full_name() << "." << name << " is no parameter of " << type->name();
    }
  }
}

}  // namespace
}  // namespace rgfx::service
