#include "graph/compile_cache.h"

namespace rgfx::graph {

CompileCache::CompileCache(const PassRegistry& registry, gpu::DeviceCaps caps, CompileLimits limits,
                           size_t capacity)
    : registry_(registry), caps_(std::move(caps)), limits_(limits), capacity_(capacity) {}

absl::StatusOr<std::shared_ptr<const CompiledGraph>> CompileCache::GetOrCompile(
    const GraphDesc& desc, bool* hit) {
  std::string key = CanonicalKey(desc);
  {
    absl::MutexLock lock(&mu_);
    auto it = entries_.find(key);
    if (it != entries_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second.lru_pos);
      if (hit != nullptr) *hit = true;
      return it->second.graph;
    }
  }
  if (hit != nullptr) *hit = false;
  // Compiled outside the lock: other requests keep hitting the cache
  // meanwhile. Two threads missing on one key both compile; the first to
  // finish is kept, and both results are equal.
  absl::StatusOr<std::shared_ptr<const CompiledGraph>> compiled =
      Compile(desc, registry_, caps_, limits_);
  if (!compiled.ok() || capacity_ == 0) return compiled;

  absl::MutexLock lock(&mu_);
  auto it = entries_.find(key);
  if (it != entries_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second.lru_pos);
    return it->second.graph;
  }
  lru_.push_front(key);
  entries_.emplace(std::move(key), Entry{*compiled, lru_.begin()});
  while (entries_.size() > capacity_) {
    entries_.erase(lru_.back());
    lru_.pop_back();
  }
  return compiled;
}

size_t CompileCache::size() const {
  absl::MutexLock lock(&mu_);
  return entries_.size();
}

}  // namespace rgfx::graph
