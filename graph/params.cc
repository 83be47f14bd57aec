#include "graph/params.h"

#include <charconv>
#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace rgfx::graph {
namespace {

// Shortest text that reads back as the same double (so messages and the
// catalog show 0.001, not 0.0010000000000000000208).
std::string DoubleToString(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  // Whole numbers in plain digits: "[0, 1000000]" reads better than "1e+06".
  if (std::trunc(value) == value && std::fabs(value) < 1e15) {
    return absl::StrCat(static_cast<int64_t>(value));
  }
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  if (ec != std::errc()) return absl::StrCat(value);
  return std::string(buffer, end);
}

std::string_view ValueKind(const ParamValue& value) {
  switch (value.index()) {
    case 0:
      return "bool";
    case 1:
      return "int";
    case 2:
      return "float";
    default:
      return "string";
  }
}

std::string Describe(const ParamValue& value) {
  return absl::StrCat(std::string(ValueKind(value)), " ", ParamValueToString(value));
}

std::string Prefix(const std::string& pass_name, const ParamSpec& spec) {
  return absl::StrCat("pass '", pass_name, "': parameter '", spec.name, "'");
}

absl::Status OutOfRange(const std::string& pass_name, const ParamSpec& spec, double value) {
  return absl::InvalidArgumentError(
      absl::StrCat(Prefix(pass_name, spec), " = ", DoubleToString(value), " is out of range [",
                   DoubleToString(spec.min), ", ", DoubleToString(spec.max), "]"));
}

absl::Status WrongType(const std::string& pass_name, const ParamSpec& spec,
                       const ParamValue& value) {
  return absl::InvalidArgumentError(
      absl::StrCat(Prefix(pass_name, spec), " must be ",
                   spec.type == ParamType::kInt || spec.type == ParamType::kEnum ? "an " : "a ",
                   ParamTypeName(spec.type), ", got ", Describe(value)));
}

// Checks one given value against its spec; may rewrite it to the spec's type
// (an int where a float is expected, an integral float where an int is, an
// enum spelled in another case).
absl::Status CheckValue(const std::string& pass_name, const ParamSpec& spec, ParamValue& value) {
  switch (spec.type) {
    case ParamType::kBool:
      if (!std::holds_alternative<bool>(value)) return WrongType(pass_name, spec, value);
      return absl::OkStatus();
    case ParamType::kInt: {
      if (const double* d = std::get_if<double>(&value)) {
        // 2.0 from a JSON number is an int; 2.5 is not. 2^63 does not fit.
        if (!std::isfinite(*d) || std::trunc(*d) != *d || *d < -9223372036854775808.0 ||
            *d >= 9223372036854775808.0) {
          return absl::InvalidArgumentError(absl::StrCat(
              Prefix(pass_name, spec), " must be an integer, got ", DoubleToString(*d)));
        }
        value = static_cast<int64_t>(*d);
      }
      const int64_t* i = std::get_if<int64_t>(&value);
      if (i == nullptr) return WrongType(pass_name, spec, value);
      if (static_cast<double>(*i) < spec.min || static_cast<double>(*i) > spec.max) {
        return absl::InvalidArgumentError(
            absl::StrCat(Prefix(pass_name, spec), " = ", *i, " is out of range [",
                         DoubleToString(spec.min), ", ", DoubleToString(spec.max), "]"));
      }
      return absl::OkStatus();
    }
    case ParamType::kFloat: {
      if (const int64_t* i = std::get_if<int64_t>(&value)) value = static_cast<double>(*i);
      const double* d = std::get_if<double>(&value);
      if (d == nullptr) return WrongType(pass_name, spec, value);
      // Written so that NaN fails too: every comparison with NaN is false.
      if (!(std::isfinite(*d) && *d >= spec.min && *d <= spec.max)) {
        return OutOfRange(pass_name, spec, *d);
      }
      return absl::OkStatus();
    }
    case ParamType::kEnum: {
      const std::string* s = std::get_if<std::string>(&value);
      if (s == nullptr) return WrongType(pass_name, spec, value);
      for (const std::string& allowed : spec.enum_values) {
        if (*s == allowed) return absl::OkStatus();
      }
      // Enums travel lower-case; accept "CLAMP" from a hand-written graph too.
      for (const std::string& allowed : spec.enum_values) {
        if (absl::EqualsIgnoreCase(*s, allowed)) {
          value = allowed;
          return absl::OkStatus();
        }
      }
      return absl::InvalidArgumentError(
          absl::StrCat(Prefix(pass_name, spec), " = '", *s,
                       "' is not one of: ", absl::StrJoin(spec.enum_values, ", ")));
    }
  }
  return absl::InternalError("unknown parameter type");
}

}  // namespace

const ParamValue* Params::Find(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

int64_t Params::Int(const std::string& name) const { return std::get<int64_t>(values_.at(name)); }

double Params::Float(const std::string& name) const {
  const ParamValue& value = values_.at(name);
  if (const int64_t* i = std::get_if<int64_t>(&value)) return static_cast<double>(*i);
  return std::get<double>(value);
}

bool Params::Bool(const std::string& name) const { return std::get<bool>(values_.at(name)); }

const std::string& Params::Enum(const std::string& name) const {
  return std::get<std::string>(values_.at(name));
}

std::optional<double> Params::OptionalFloat(const std::string& name) const {
  if (!Has(name)) return std::nullopt;
  return Float(name);
}

std::string ParamTypeName(ParamType type) {
  switch (type) {
    case ParamType::kBool:
      return "bool";
    case ParamType::kInt:
      return "int";
    case ParamType::kFloat:
      return "float";
    case ParamType::kEnum:
      return "enum";
  }
  return "unknown";
}

std::string ParamValueToString(const ParamValue& value) {
  switch (value.index()) {
    case 0:
      return std::get<bool>(value) ? "true" : "false";
    case 1:
      return absl::StrCat(std::get<int64_t>(value));
    case 2:
      return DoubleToString(std::get<double>(value));
    default:
      return std::get<std::string>(value);
  }
}

absl::Status ValidateAndFillParams(const std::string& pass_name,
                                   const std::vector<ParamSpec>& specs, Params& params) {
  // Unknown names first: a misspelt parameter would otherwise silently fall
  // back to its default.
  for (const auto& [name, value] : params.values()) {
    bool known = false;
    for (const ParamSpec& spec : specs) known = known || spec.name == name;
    if (!known) {
      std::vector<std::string> names;
      for (const ParamSpec& spec : specs) names.push_back(spec.name);
      return absl::InvalidArgumentError(
          absl::StrCat("pass '", pass_name, "': unknown parameter '", name, "'",
                       names.empty() ? std::string(" (this pass type takes none)")
                                     : absl::StrCat(" (known: ", absl::StrJoin(names, ", "), ")")));
    }
  }
  for (const ParamSpec& spec : specs) {
    if (const ParamValue* given = params.Find(spec.name)) {
      ParamValue value = *given;
      if (absl::Status status = CheckValue(pass_name, spec, value); !status.ok()) return status;
      params.Set(spec.name, std::move(value));
    } else if (spec.default_value.has_value()) {
      params.Set(spec.name, *spec.default_value);
    }
  }
  return absl::OkStatus();
}

}  // namespace rgfx::graph
