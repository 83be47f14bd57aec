// Compiled graphs cached by CanonicalKey(desc) (graph, input sizes and
// formats). Thread-safe; bounded, least recently used entries go first.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>

#include "absl/synchronization/mutex.h"
#include "graph/compile.h"

namespace rgfx::graph {

class CompileCache {
 public:
  CompileCache(const PassRegistry& registry, gpu::DeviceCaps caps, CompileLimits limits,
               size_t capacity = 256);

  // Returns the cached compiled graph or compiles it. Errors are not cached.
  absl::StatusOr<std::shared_ptr<const CompiledGraph>> GetOrCompile(const GraphDesc& desc,
                                                                    bool* hit = nullptr);
  size_t size() const;
  const CompileLimits& limits() const { return limits_; }

 private:
  const PassRegistry& registry_;
  const gpu::DeviceCaps caps_;
  const CompileLimits limits_;
  const size_t capacity_;
  mutable absl::Mutex mu_;
  std::list<std::string> lru_ ABSL_GUARDED_BY(mu_);  // front = most recent
  struct Entry {
    std::shared_ptr<const CompiledGraph> graph;
    std::list<std::string>::iterator lru_pos;
  };
  std::unordered_map<std::string, Entry> entries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace rgfx::graph
