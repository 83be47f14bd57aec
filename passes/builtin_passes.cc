#include "passes/builtin_passes.h"

#include "passes/branch_lab.h"
#include "passes/composite.h"
#include "passes/copy.h"
#include "passes/downsample.h"
#include "passes/dual_filter.h"
#include "passes/gaussian_blur.h"
#include "passes/import_export.h"
#include "passes/threshold.h"
#include "passes/upsample.h"

namespace rgfx::passes {

void RegisterBuiltinPasses(graph::PassRegistry& registry) {
  registry.Register(MakeImportPass());
  registry.Register(MakeExportPass());
  registry.Register(MakeCopyPass());
  registry.Register(MakeGaussianBlurPass());
  registry.Register(MakeDownsamplePass());
  registry.Register(MakeUpsamplePass());
  registry.Register(MakeThresholdPass());
  registry.Register(MakeCompositePass());
  registry.Register(MakeDualFilterPass());
  registry.Register(MakeBranchLabPass());
}

}  // namespace rgfx::passes
