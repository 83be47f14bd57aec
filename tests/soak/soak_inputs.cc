#include "tests/soak/soak_inputs.h"

#include <png.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include <google/protobuf/util/json_util.h>

#include "absl/strings/str_cat.h"
#include "grpcpp/support/status.h"

namespace rgfx::soak {
namespace {

void AppendToString(png_structp png, png_bytep data, png_size_t length) {
  auto* out = static_cast<std::string*>(png_get_io_ptr(png));
  out->append(reinterpret_cast<const char*>(data), length);
}

// RGBA rows (8 bits, or 16 bits big-endian as PNG stores them) to a PNG.
std::string EncodePng(uint32_t width, uint32_t height, int bit_depth,
                      const std::vector<uint8_t>& rows) {
  std::string out;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return {};
  }
  png_set_write_fn(png, &out, AppendToString, nullptr);
  png_set_IHDR(png, info, width, height, bit_depth, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  const size_t stride = size_t{width} * 4 * (bit_depth / 8);
  for (uint32_t y = 0; y < height; ++y) {
    png_write_row(png, const_cast<png_bytep>(rows.data() + y * stride));
  }
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  return out;
}

// Big-endian 32-bit value at `offset`.
void PutU32(std::string& s, size_t offset, uint32_t v) {
  for (int i = 0; i < 4; ++i) s[offset + i] = static_cast<char>(v >> (24 - 8 * i));
}

}  // namespace

absl::StatusOr<std::vector<SoakGraph>> LoadGraphs(const std::string& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".json") files.push_back(e.path());
  }
  if (ec) return absl::NotFoundError(absl::StrCat("cannot list ", dir, ": ", ec.message()));
  std::sort(files.begin(), files.end());
  std::vector<SoakGraph> graphs;
  for (const auto& path : files) {
    std::ifstream in(path);
    const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    SoakGraph g;
    g.name = path.stem().string();
    if (auto s = google::protobuf::util::JsonStringToMessage(json, &g.graph); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(path.string(), ": ", s.ToString()));
    }
    std::set<std::string> written;
    for (const v1::Pass& p : g.graph.passes()) written.insert(p.outputs().begin(), p.outputs().end());
    for (const v1::Pass& p : g.graph.passes()) {
      for (const std::string& in_name : p.inputs()) {
        if (!written.count(in_name) &&
            std::find(g.inputs.begin(), g.inputs.end(), in_name) == g.inputs.end()) {
          g.inputs.push_back(in_name);
        }
      }
    }
    graphs.push_back(std::move(g));
  }
  if (graphs.empty()) return absl::NotFoundError(absl::StrCat("no *.json graphs in ", dir));
  return graphs;
}

SoakImage MakeImage(uint32_t width, uint32_t height, ImageKind kind, uint32_t seed) {
  const int bytes_per_channel = kind == ImageKind::kPng16 ? 2 : 1;
  std::vector<uint8_t> pixels(size_t{width} * height * 4 * bytes_per_channel);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> phase(0, 6.28);
  const double p[4] = {phase(rng), phase(rng), phase(rng), phase(rng)};
  size_t i = 0;
  for (uint32_t y = 0; y < height; ++y) {
    for (uint32_t x = 0; x < width; ++x) {
      for (int c = 0; c < 4; ++c) {
        // Smooth gradients plus a little noise: blurs change every pixel.
        double v = 0.5 + 0.4 * std::sin(x * 0.05 * (c + 1) + p[c]) * std::cos(y * 0.07 + p[c]);
        v += (rng() % 64) / 1024.0;
        if (c == 3) v = 0.6 + 0.4 * v;
        const uint32_t q = static_cast<uint32_t>(
            std::clamp(v, 0.0, 1.0) * (bytes_per_channel == 2 ? 65535 : 255));
        if (bytes_per_channel == 2) {
          pixels[i++] = static_cast<uint8_t>(q >> 8);  // PNG: big-endian
          pixels[i++] = static_cast<uint8_t>(q);
        } else {
          pixels[i++] = static_cast<uint8_t>(q);
        }
      }
    }
  }
  SoakImage out;
  out.image.set_width(width);
  out.image.set_height(height);
  switch (kind) {
    case ImageKind::kPng8:
      out.label = absl::StrCat(width, "x", height, "-png8");
      out.image.set_encoding(v1::IMAGE_ENCODING_PNG);
      out.image.set_data(EncodePng(width, height, 8, pixels));
      break;
    case ImageKind::kPng16:
      out.label = absl::StrCat(width, "x", height, "-png16");
      out.image.set_encoding(v1::IMAGE_ENCODING_PNG);
      out.image.set_data(EncodePng(width, height, 16, pixels));
      break;
    case ImageKind::kRaw8:
      out.label = absl::StrCat(width, "x", height, "-rgba8");
      out.image.set_encoding(v1::IMAGE_ENCODING_RGBA8);
      out.image.set_data(std::string(pixels.begin(), pixels.end()));
      break;
  }
  return out;
}

v1::ProcessRequest MakeRequest(const SoakGraph& graph, const SoakImage& image,
                               const std::string& id) {
  v1::ProcessRequest request;
  request.set_id(id);
  *request.mutable_graph() = graph.graph;
  for (const std::string& name : graph.inputs) {
    v1::Image& in = *request.add_inputs();
    in = image.image;
    in.set_name(name);
  }
  return request;
}

const char* BadKindName(BadKind kind) {
  switch (kind) {
    case BadKind::kTruncatedPng: return "truncated PNG";
    case BadKind::kUnknownInput: return "graph reads an unknown image";
    case BadKind::kCycle: return "graph with a cycle";
    case BadKind::kOverPixelLimit: return "PNG header over max_pixels";
    case BadKind::kRawSizeMismatch: return "raw data size mismatch";
  }
  return "?";
}

BadRequest MakeBad(BadKind kind, const v1::ProcessRequest& good, uint64_t max_pixels) {
  BadRequest bad{good, grpc::StatusCode::INVALID_ARGUMENT};
  v1::ProcessRequest& r = bad.request;
  v1::Image& first = *r.mutable_inputs(0);
  // A small PNG to spoil when the good request's input is raw.
  const auto ensure_png = [&] {
    if (first.encoding() != v1::IMAGE_ENCODING_PNG) {
      v1::Image png = MakeImage(16, 16, ImageKind::kPng8, 7).image;
      png.set_name(first.name());
      first = png;
    }
  };
  switch (kind) {
    case BadKind::kTruncatedPng:
      ensure_png();
      first.mutable_data()->resize(first.data().size() / 2);
      break;
    case BadKind::kUnknownInput:
      r.mutable_graph()->mutable_passes(0)->add_inputs("no_such_image");
      break;
    case BadKind::kCycle: {
      // The last pass's output feeds the first pass.
      v1::Graph& g = *r.mutable_graph();
      g.mutable_passes(0)->add_inputs(g.passes(g.passes_size() - 1).outputs(0));
      break;
    }
    case BadKind::kOverPixelLimit: {
      ensure_png();
      // IHDR's width and height (bytes 16..23) just over the limit, CRC fixed.
      const uint32_t side = static_cast<uint32_t>(std::sqrt(static_cast<double>(max_pixels))) + 2;
      std::string& data = *first.mutable_data();
      PutU32(data, 16, side);
      PutU32(data, 20, side);
      const uLong crc = crc32(crc32(0, nullptr, 0),
                              reinterpret_cast<const Bytef*>(data.data() + 12), 17);
      PutU32(data, 29, static_cast<uint32_t>(crc));
      first.set_width(0);
      first.set_height(0);
      bad.expected_code = grpc::StatusCode::RESOURCE_EXHAUSTED;
      break;
    }
    case BadKind::kRawSizeMismatch:
      first = MakeImage(8, 8, ImageKind::kRaw8, 3).image;
      first.set_name(good.inputs(0).name());
      first.mutable_data()->pop_back();
      break;
  }
  return bad;
}

}  // namespace rgfx::soak
