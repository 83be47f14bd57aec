#include "service/malloc_arenas.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "absl/strings/str_cat.h"

namespace rgfx::service {

absl::Status LimitMallocArenas(int arenas) {
  if (arenas <= 0) return absl::InvalidArgumentError(absl::StrCat("malloc arenas ", arenas, ": must be > 0"));
#if defined(__GLIBC__)
  if (mallopt(M_ARENA_MAX, arenas) == 1) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("mallopt(M_ARENA_MAX, ", arenas, ") failed"));
#else
  return absl::UnimplementedError("the C library has no M_ARENA_MAX");
#endif
}

int MallocArenaCount() {
#if defined(__GLIBC__)
  char* text = nullptr;
  size_t size = 0;
  FILE* out = open_memstream(&text, &size);
  if (out == nullptr) return -1;
  const int rc = malloc_info(0, out);
  std::fclose(out);
  int heaps = -1;
  if (rc == 0 && text != nullptr) {
    // One <heap nr="i"> element per arena.
    heaps = 0;
    std::string_view rest(text, size);
    for (size_t at = rest.find("<heap nr="); at != std::string_view::npos;
         at = rest.find("<heap nr=", at + 1)) {
      ++heaps;
    }
  }
  std::free(text);
  return heaps;
#else
  return -1;
#endif
}

}  // namespace rgfx::service
