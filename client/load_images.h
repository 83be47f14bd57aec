// Input images of `rgfx load` (and `--input_encoding` of every subcommand):
// the files a --images list names, a folder standing for the PNG files in it,
// and a PNG turned into raw RGBA8 on the client, so a load test can send raw
// pixels made from the same photographs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace rgfx::client {

// Files and folders → files: a folder contributes its *.png files (sorted by
// name, not recursive). NOT_FOUND for a missing path or a folder without
// PNG files.
absl::StatusOr<std::vector<std::string>> ExpandImagePaths(const std::vector<std::string>& paths);

struct Rgba8Image {
  uint32_t width = 0;
  uint32_t height = 0;
  std::string pixels;  // width * height * 4 bytes, straight alpha, sRGB
};

// Decodes any PNG libpng reads into 8-bit RGBA (libpng's simplified API:
// palette, grey and 16-bit inputs are converted). INVALID_ARGUMENT naming
// libpng's complaint otherwise.
absl::StatusOr<Rgba8Image> DecodePngToRgba8(const std::string& png);

}  // namespace rgfx::client
