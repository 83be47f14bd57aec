#include "passes/builtin_passes.h"

#include "passes/copy.h"
#include "passes/gaussian_blur.h"
#include "passes/import_export.h"

namespace rgfx::passes {

void RegisterBuiltinPasses(graph::PassRegistry& registry) {
  registry.Register(MakeImportPass());
  registry.Register(MakeExportPass());
  registry.Register(MakeCopyPass());
  registry.Register(MakeGaussianBlurPass());
}

}  // namespace rgfx::passes
