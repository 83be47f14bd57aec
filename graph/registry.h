// Pass types by name. passes/ registers the built-in ones; the graph looks
// them up while validating, so adding a pass type changes nothing here.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "graph/pass_type.h"

namespace rgfx::graph {

class PassRegistry {
 public:
  // Dies on a duplicate name: registration is our own code's invariant.
  void Register(std::unique_ptr<PassType> type);
  const PassType* Find(std::string_view name) const;
  // All registered types sorted by name (the catalog order).
  std::vector<const PassType*> All() const;

 private:
  std::map<std::string, std::unique_ptr<PassType>, std::less<>> types_;
};

// Internal pass types the compiler inserts around every graph: "import"
// converts an input from the client's format to the working format (sRGB to
// linear, straight to premultiplied); "export" converts back. They are
// registered like any other type, but clients cannot name them.
inline constexpr std::string_view kImportPassType = "import";
inline constexpr std::string_view kExportPassType = "export";

}  // namespace rgfx::graph
