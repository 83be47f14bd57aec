// Fuzz target png_decode: every path DecodePngInto dispatches to (the fast
// path and libpng, compared with each other), and both encoders' round trip
// of what decoded.
#include <cstring>
#include <span>
#include <vector>

#include "absl/strings/str_cat.h"
#include "service/png_codec.h"
#include "service/png_fast_encode.h"
#include "tests/fuzz/fuzz_targets.h"

namespace rgfx::fuzz {
namespace {

// Smaller than the server's 64 Mpixel default so one input cannot take
// seconds: zlib expands at most ~1000:1, so a few KB of input reach this.
constexpr uint64_t kMaxPixels = 1 << 20;

bool Expected(const absl::Status& s) {
  return (s.code() == absl::StatusCode::kInvalidArgument ||
          s.code() == absl::StatusCode::kResourceExhausted) &&
         !s.message().empty();
}

}  // namespace

int FuzzPngDecode(const uint8_t* data, size_t size) {
  const std::span<const std::byte> png(reinterpret_cast<const std::byte*>(data), size);
  absl::StatusOr<service::PngInfo> info = service::ReadPngHeader("fuzz.png", png, kMaxPixels);
  if (!info.ok()) {
    FUZZ_CHECK(Expected(info.status()), info.status().ToString());
    return 0;
  }
  const uint64_t bpp = graph::BytesPerPixel(info->format);
  FUZZ_CHECK(info->width > 0 && info->height > 0, "zero extent accepted");
  FUZZ_CHECK(uint64_t{info->width} * info->height <= kMaxPixels, "pixel limit ignored");
  FUZZ_CHECK(info->decoded_bytes == uint64_t{info->width} * info->height * bpp,
             absl::StrCat("decoded_bytes ", info->decoded_bytes));
  FUZZ_CHECK(info->format == (info->bit_depth == 16 ? graph::PixelFormat::kRgba16
                                                    : graph::PixelFormat::kRgba8),
             absl::StrCat("format for bit depth ", info->bit_depth));

  // Every decode path: the default (the fast path where it applies) and
  // libpng alone, which must agree on success and on every byte.
  std::vector<std::byte> pixels(info->decoded_bytes);
  const absl::Status decoded = service::DecodePngInto("fuzz.png", png, *info, pixels);
  std::vector<std::byte> reference(info->decoded_bytes);
  const absl::Status decoded_libpng = service::DecodePngInto(
      "fuzz.png", png, *info, reference, service::PngDecodeOptions{.allow_fast_path = false});
  FUZZ_CHECK(decoded.ok() == decoded_libpng.ok(),
             absl::StrCat("default decode: ", decoded.ToString(),
                          "; libpng alone: ", decoded_libpng.ToString()));
  if (!decoded.ok()) {
    FUZZ_CHECK(decoded.code() == absl::StatusCode::kInvalidArgument && !decoded.message().empty(),
               decoded.ToString());
    return 0;
  }
  FUZZ_CHECK(pixels == reference, "the default decode and libpng's differ");

  // What decoded must encode, with either encoder (and the fast one's own
  // runs coder forced, which level 1 reaches only where its sample picks
  // it), and decode again to the same pixels. The input's last byte picks
  // level, filter and RGB-if-opaque, so all are fuzzed.
  const uint8_t pick = data[size - 1];
  auto round_trip = [&](const absl::StatusOr<std::string>& encoded, const char* encoder) {
    FUZZ_CHECK(encoded.ok(), encoded.status().ToString());
    const std::span<const std::byte> again_png(
        reinterpret_cast<const std::byte*>(encoded->data()), encoded->size());
    absl::StatusOr<service::PngInfo> again_info =
        service::ReadPngHeader("roundtrip.png", again_png, kMaxPixels);
    FUZZ_CHECK(again_info.ok(), again_info.status().ToString());
    FUZZ_CHECK(again_info->width == info->width && again_info->height == info->height &&
                   again_info->format == info->format,
               "round trip changed the header");
    std::vector<std::byte> again(again_info->decoded_bytes);
    const absl::Status redecoded =
        service::DecodePngInto("roundtrip.png", again_png, *again_info, again);
    FUZZ_CHECK(redecoded.ok(), redecoded.ToString());
    FUZZ_CHECK(again == pixels, absl::StrCat("round trip changed the pixels (", encoder, ")"));
  };
  for (const service::PngEncoder encoder :
       {service::PngEncoder::kFast, service::PngEncoder::kLibpng}) {
    service::PngEncodeOptions options;
    options.encoder = encoder;
    options.single_fast_filter = size % 2 == 0;
    options.compression_level = static_cast<int>(pick % 10);
    options.fast_filter = static_cast<service::PngRowFilter>(pick / 10 % 5);
    options.threads = 1 + pick % 3;
    // As the service encodes by default: opaque images as RGB.
    options.opaque_as_rgb = pick / 50 % 2 == 1;
    round_trip(service::EncodePng(pixels, info->width, info->height, info->format, options),
               encoder == service::PngEncoder::kFast ? "fast" : "libpng");
  }
  round_trip(service::EncodePngFast(pixels, info->width, info->height,
                                    info->format == graph::PixelFormat::kRgba16,
                                    {.method = service::DeflateMethod::kRuns,
                                     .filter = static_cast<service::PngRowFilter>(pick / 10 % 5),
                                     .threads = 1 + pick % 3,
                                     .min_piece_bytes = 1,
                                     .opaque_as_rgb = pick / 50 % 2 == 1}),
             "fast, runs coder");
  return 0;
}

}  // namespace rgfx::fuzz
