// Typed pass parameters. A pass type declares a ParamSpec per parameter; the
// graph checks a pass's Params against them (type, range, enum values) before
// any GPU work, so a pass's own code sees only valid values.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"

namespace rgfx::graph {

enum class ParamType { kBool, kInt, kFloat, kEnum };

// Enums travel as their lower-case name ("clamp", "auto").
using ParamValue = std::variant<bool, int64_t, double, std::string>;

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::kFloat;
  std::string doc;  // one line with the unit and what the default means
  // Absent: no fixed default (the pass derives one, e.g. sigma = radius / 2).
  std::optional<ParamValue> default_value;
  double min = 0;  // inclusive range for kInt and kFloat
  double max = 0;
  std::vector<std::string> enum_values;  // for kEnum
};

// Values a pass was given, by name. After validation every spec with a
// default has a value; missing ones without a default stay absent.
class Params {
 public:
  void Set(std::string name, ParamValue value) { values_[std::move(name)] = std::move(value); }
  bool Has(const std::string& name) const { return values_.count(name) != 0; }
  const ParamValue* Find(const std::string& name) const;

  // Accessors for validated params: they assume the spec's type.
  int64_t Int(const std::string& name) const;
  double Float(const std::string& name) const;  // also accepts ints
  bool Bool(const std::string& name) const;
  const std::string& Enum(const std::string& name) const;
  std::optional<double> OptionalFloat(const std::string& name) const;

  const std::map<std::string, ParamValue>& values() const { return values_; }
  bool operator==(const Params&) const = default;

 private:
  std::map<std::string, ParamValue> values_;
};

std::string ParamTypeName(ParamType type);
std::string ParamValueToString(const ParamValue& value);

// Checks `params` against `specs` and fills defaults. Errors name the pass
// and the parameter: "pass 'blur': parameter 'radius' = -1 is out of range [0, 4096]".
absl::Status ValidateAndFillParams(const std::string& pass_name,
                                   const std::vector<ParamSpec>& specs, Params& params);

}  // namespace rgfx::graph
