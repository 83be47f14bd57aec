#include "client/load_images.h"

#include <png.h>

#include <algorithm>
#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace rgfx::client {

absl::StatusOr<std::vector<std::string>> ExpandImagePaths(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code error;
    if (fs::is_directory(path, error)) {
      std::vector<std::string> found;
      for (const fs::directory_entry& entry : fs::directory_iterator(path, error)) {
        if (entry.is_regular_file() &&
            absl::AsciiStrToLower(entry.path().extension().string()) == ".png") {
          found.push_back(entry.path().string());
        }
      }
      if (found.empty()) return absl::NotFoundError(absl::StrCat(path, ": no .png files in it"));
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(path, error)) {
      files.push_back(path);
    } else {
      return absl::NotFoundError(absl::StrCat(path, ": no such file or folder"));
    }
  }
  return files;
}

absl::StatusOr<Rgba8Image> DecodePngToRgba8(const std::string& png) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, png.data(), png.size())) {
    return absl::InvalidArgumentError(absl::StrCat("PNG: ", image.message));
  }
  image.format = PNG_FORMAT_RGBA;
  Rgba8Image out;
  out.width = image.width;
  out.height = image.height;
  out.pixels.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, out.pixels.data(), 0, nullptr)) {
    const std::string message = image.message;
    png_image_free(&image);
    return absl::InvalidArgumentError(absl::StrCat("PNG: ", message));
  }
  return out;
}

}  // namespace rgfx::client
