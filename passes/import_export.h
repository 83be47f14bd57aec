// The internal passes the compiler puts around every graph: "import" turns a
// client image into the working format, "export" turns a working-format
// resource into the client's requested format. See shaders/import.comp and
// shaders/export.comp for the conversions.
#pragma once

#include <memory>

#include "graph/pass_type.h"

namespace rgfx::passes {

std::unique_ptr<graph::PassType> MakeImportPass();
std::unique_ptr<graph::PassType> MakeExportPass();

}  // namespace rgfx::passes
