#include "graph/registry.h"

#include <cstdio>
#include <cstdlib>

namespace rgfx::graph {

void PassRegistry::Register(std::unique_ptr<PassType> type) {
  std::string name(type->name());
  auto [it, inserted] = types_.emplace(name, std::move(type));
  if (!inserted) {
    // Two registrations of one name are a bug in our own start-up code.
    std::fprintf(stderr, "rgfx: pass type '%s' registered twice\n", name.c_str());
    std::abort();
  }
}

const PassType* PassRegistry::Find(std::string_view name) const {
  auto it = types_.find(name);
  return it == types_.end() ? nullptr : it->second.get();
}

std::vector<const PassType*> PassRegistry::All() const {
  std::vector<const PassType*> all;
  all.reserve(types_.size());
  for (const auto& [name, type] : types_) all.push_back(type.get());
  return all;
}

}  // namespace rgfx::graph
