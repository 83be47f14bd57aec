#include "client/graph_file.h"

#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include <google/protobuf/util/json_util.h>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace rgfx::client {
namespace {

using google::protobuf::FieldDescriptor;

absl::Status SetField(google::protobuf::Message& message, const FieldDescriptor& field,
                      const std::string& text, const std::string& what) {
  const google::protobuf::Reflection& r = *message.GetReflection();
  const auto bad = [&] {
    return absl::InvalidArgumentError(absl::StrCat(what, ": '", text, "' is not a valid ",
                                                   field.cpp_type_name()));
  };
  switch (field.cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: {
      int32_t v;
      if (!absl::SimpleAtoi(text, &v)) return bad();
      r.SetInt32(&message, &field, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_INT64: {
      int64_t v;
      if (!absl::SimpleAtoi(text, &v)) return bad();
      r.SetInt64(&message, &field, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_UINT32: {
      uint32_t v;
      if (!absl::SimpleAtoi(text, &v)) return bad();
      r.SetUInt32(&message, &field, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_UINT64: {
      uint64_t v;
      if (!absl::SimpleAtoi(text, &v)) return bad();
      r.SetUInt64(&message, &field, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_FLOAT: {
      float v;
      if (!absl::SimpleAtof(text, &v)) return bad();
      r.SetFloat(&message, &field, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_DOUBLE: {
      double v;
      if (!absl::SimpleAtod(text, &v)) return bad();
      r.SetDouble(&message, &field, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_BOOL: {
      bool v;
      if (!absl::SimpleAtob(text, &v)) return bad();
      r.SetBool(&message, &field, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_STRING: r.SetString(&message, &field, text); break;
    case FieldDescriptor::CPPTYPE_ENUM: {
      // Accept the full name or the short lower-case one ("mirror").
      const google::protobuf::EnumDescriptor& type = *field.enum_type();
      const google::protobuf::EnumValueDescriptor* value = type.FindValueByName(text);
      for (int i = 0; value == nullptr && i < type.value_count(); ++i) {
        const std::string& name = type.value(i)->name();
        const std::string upper = absl::AsciiStrToUpper(text);
        if (name.size() > upper.size() && name.compare(name.size() - upper.size(), upper.size(),
                                                       upper) == 0 &&
            name[name.size() - upper.size() - 1] == '_') {
          value = type.value(i);
        }
      }
      if (value == nullptr) {
        std::string names;
        for (int i = 1; i < type.value_count(); ++i) {
          absl::StrAppend(&names, i > 1 ? ", " : "", type.value(i)->name());
        }
        return absl::InvalidArgumentError(
            absl::StrCat(what, ": '", text, "' is not one of ", names));
      }
      r.SetEnum(&message, &field, value);
      break;
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return absl::InvalidArgumentError(absl::StrCat(what, " is a message"));
  }
  return absl::OkStatus();
}

// -0 to 0 in every float and double field of `message` and the messages in
// it (graph_file.h says why). rgfx.v1 has no repeated float or double
// fields, so only singular ones are looked at.
void ZeroNegativeZeros(google::protobuf::Message& message) {
  const google::protobuf::Reflection& r = *message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  r.ListFields(message, &fields);  // lists a -0: proto3 presence is by bits
  for (const FieldDescriptor* field : fields) {
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (!field->is_repeated()) {
        ZeroNegativeZeros(*r.MutableMessage(&message, field));
        continue;
      }
      for (int i = 0; i < r.FieldSize(message, field); ++i) {
        ZeroNegativeZeros(*r.MutableRepeatedMessage(&message, field, i));
      }
    } else if (field->is_repeated()) {
      continue;
    } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_FLOAT &&
               r.GetFloat(message, field) == 0) {
      r.SetFloat(&message, field, 0.0f);
    } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_DOUBLE &&
               r.GetDouble(message, field) == 0) {
      r.SetDouble(&message, field, 0.0);
    }
  }
}

}  // namespace

absl::StatusOr<v1::Graph> LoadGraphFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read graph file ", path));
  std::stringstream text;
  text << in.rdbuf();
  return ParseGraphJson(text.str(), path);
}

absl::StatusOr<v1::Graph> ParseGraphJson(const std::string& json, const std::string& source) {
  v1::Graph graph;
  const auto status = google::protobuf::util::JsonStringToMessage(json, &graph);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": not a valid rgfx.v1.Graph: ", status.ToString()));
  }
  ZeroNegativeZeros(graph);
  return graph;
}

absl::Status ApplySet(v1::Graph& graph, const std::string& assignment) {
  const size_t dot = assignment.find('.');
  const size_t eq = assignment.find('=');
  if (dot == std::string::npos || eq == std::string::npos || dot > eq) {
    return absl::InvalidArgumentError(
        absl::StrCat("--set '", assignment, "': expected pass.param=value"));
  }
  const std::string pass_name = assignment.substr(0, dot);
  const std::string param = assignment.substr(dot + 1, eq - dot - 1);
  const std::string value = assignment.substr(eq + 1);
  for (v1::Pass& pass : *graph.mutable_passes()) {
    if (pass.name() != pass_name) continue;
    const google::protobuf::Reflection& r = *pass.GetReflection();
    const FieldDescriptor* type_field =
        r.GetOneofFieldDescriptor(pass, pass.GetDescriptor()->FindOneofByName("params"));
    if (type_field == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("pass '", pass_name, "' has no type"));
    }
    google::protobuf::Message& params = *r.MutableMessage(&pass, type_field);
    const FieldDescriptor* field = params.GetDescriptor()->FindFieldByName(param);
    if (field == nullptr) {
      std::string names;
      for (int i = 0; i < params.GetDescriptor()->field_count(); ++i) {
        absl::StrAppend(&names, i ? ", " : "", params.GetDescriptor()->field(i)->name());
      }
      return absl::InvalidArgumentError(absl::StrCat("pass '", pass_name, "' (",
                                                     type_field->name(), ") has no parameter '",
                                                     param, "'; it has: ", names));
    }
    const absl::Status set =
        SetField(params, *field, value, absl::StrCat("--set ", pass_name, ".", param));
    ZeroNegativeZeros(params);
    return set;
  }
  return absl::InvalidArgumentError(absl::StrCat("--set: the graph has no pass '", pass_name, "'"));
}

std::vector<std::string> ExternalInputs(const v1::Graph& graph) {
  std::set<std::string> written;
  for (const v1::Pass& pass : graph.passes()) written.insert(pass.outputs().begin(), pass.outputs().end());
  std::vector<std::string> external;
  for (const v1::Pass& pass : graph.passes()) {
    for (const std::string& name : pass.inputs()) {
      if (!written.count(name) &&
          std::find(external.begin(), external.end(), name) == external.end()) {
        external.push_back(name);
      }
    }
  }
  return external;
}

}  // namespace rgfx::client
