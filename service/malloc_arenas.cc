#include "service/malloc_arenas.h"

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

}  // namespace rgfx::service
