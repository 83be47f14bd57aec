#include "service/png_codec.h"

#include <png.h>

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "service/png_chunks.h"
#include "service/png_fast_decode.h"

namespace rgfx::service {
namespace {

// Kept local (not graph::BytesPerPixel) so the codec builds and tests alone.
uint64_t RawBytesPerPixel(graph::PixelFormat format) {
  switch (format) {
    case graph::PixelFormat::kRgba8: return 4;
    case graph::PixelFormat::kRgba16: return 8;
    case graph::PixelFormat::kRgba16F: return 8;
    case graph::PixelFormat::kRgba32F: return 16;
  }
  return 4;
}

const char* RawName(graph::PixelFormat format) {
  switch (format) {
    case graph::PixelFormat::kRgba8: return "RGBA8";
    case graph::PixelFormat::kRgba16: return "RGBA16";
    case graph::PixelFormat::kRgba16F: return "RGBA16F";
    case graph::PixelFormat::kRgba32F: return "RGBA32F";
  }
  return "?";
}

// Ancillary chunks (text, ICC profiles) may not make libpng allocate more
// than this, so a small file cannot expand into a large allocation.
constexpr png_alloc_size_t kMaxChunkBytes = 8 << 20;
// libpng's own per-axis limit; ours is on width * height (CheckPixelLimit).
constexpr uint32_t kMaxPngAxis = 1u << 24;

// Where libpng's error text goes; png_error/longjmp leave through setjmp in
// the functions below, which hold no objects with destructors across it.
struct ErrorSink {
  char message[256] = {};
  // The last warning: libpng explains a bad IHDR in warnings ("Image width
  // is zero in IHDR") before its error ("Invalid IHDR data").
  char warning[256] = {};
  // A warning libpng gives for what the PNG specification calls an error
  // (too much image data): the decode is refused although libpng went on.
  char strict[256] = {};
};

// libpng's words for image data that does not fit the image; it warns and
// carries on, the fast path (and so the service) refuses.
constexpr const char* kStrictWarnings[] = {"Too much image data", "Extra compressed data",
                                           "Extra compression data"};

struct MemoryReader {
  const png_byte* data = nullptr;
  size_t size = 0;
  size_t offset = 0;
};

void OnError(png_structp png, png_const_charp message) {
  auto* sink = static_cast<ErrorSink*>(png_get_error_ptr(png));
  std::snprintf(sink->message, sizeof(sink->message), "%s", message);
  png_longjmp(png, 1);
}

void OnWarning(png_structp png, png_const_charp message) {
  // Warnings (e.g. a bad CRC in an ancillary chunk, which is then skipped)
  // do not fail a decode, but they explain the error that may follow.
  auto* sink = static_cast<ErrorSink*>(png_get_error_ptr(png));
  std::snprintf(sink->warning, sizeof(sink->warning), "%s", message);
  for (const char* strict : kStrictWarnings) {
    if (std::strstr(message, strict) != nullptr) {
      std::snprintf(sink->strict, sizeof(sink->strict), "%s", message);
    }
  }
}

void ReadFromMemory(png_structp png, png_bytep out, size_t length) {
  auto* reader = static_cast<MemoryReader*>(png_get_io_ptr(png));
  if (length > reader->size - reader->offset) {
    png_error(png, "truncated: the data ends before the image does");
  }
  std::memcpy(out, reader->data + reader->offset, length);
  reader->offset += length;
}

absl::Status PngError(const std::string& image_name, const ErrorSink& sink) {
  std::string text = absl::StrCat("image '", image_name, "': invalid PNG: ", sink.message);
  if (sink.warning[0] != '\0') absl::StrAppend(&text, " (", sink.warning, ")");
  return absl::InvalidArgumentError(text);
}

// Owns a read struct for one decode.
class ReadStruct {
 public:
  ReadStruct(ErrorSink& sink, MemoryReader& reader) {
    png_ = png_create_read_struct(PNG_LIBPNG_VER_STRING, &sink, OnError, OnWarning);
    if (png_ == nullptr) return;
    info_ = png_create_info_struct(png_);
    png_set_read_fn(png_, &reader, ReadFromMemory);
    png_set_user_limits(png_, kMaxPngAxis, kMaxPngAxis);
    png_set_chunk_malloc_max(png_, kMaxChunkBytes);
  }
  ~ReadStruct() { png_destroy_read_struct(&png_, info_ ? &info_ : nullptr, nullptr); }
  ReadStruct(const ReadStruct&) = delete;
  ReadStruct& operator=(const ReadStruct&) = delete;
  bool ok() const { return png_ != nullptr && info_ != nullptr; }
  png_structp png() const { return png_; }
  png_infop info() const { return info_; }

 private:
  png_structp png_ = nullptr;
  png_infop info_ = nullptr;
};

// Reads the signature and header chunks; false after a libpng error.
bool ReadInfo(png_structp png, png_infop info) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_read_info(png, info);
  return true;
}

// Sets up the transformations to RGBA 8/16 (little-endian) and decodes into
// `rows`; false after a libpng error. Palette images are read as one index
// byte per pixel (ExpandPalette does the rest), because libpng's own
// expansion silently turns indices past the end of PLTE into black.
bool ReadPixels(png_structp png, png_infop info, png_bytepp rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  const int color_type = png_get_color_type(png, info);
  const int bit_depth = png_get_bit_depth(png, info);
  if (color_type == PNG_COLOR_TYPE_PALETTE) {
    // One index per byte and no colour transformations: ExpandPalette.
    if (bit_depth < 8) png_set_packing(png);
  } else if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) {
    png_set_expand_gray_1_2_4_to_8(png);
  }
  if (color_type != PNG_COLOR_TYPE_PALETTE) {
    if (png_get_valid(png, info, PNG_INFO_tRNS)) {
      png_set_tRNS_to_alpha(png);
    } else if ((color_type & PNG_COLOR_MASK_ALPHA) == 0) {
      png_set_add_alpha(png, bit_depth == 16 ? 0xffff : 0xff, PNG_FILLER_AFTER);
    }
  }
  if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) {
    png_set_gray_to_rgb(png);
  }
  if (bit_depth == 16) png_set_swap(png);  // PNG is big-endian; raw RGBA16 is little
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  png_read_image(png, rows);
  png_read_end(png, nullptr);  // checks the trailing chunks' CRCs and IEND
  return true;
}

// Palette colours and alphas as libpng keeps them; false after an error.
bool GetPalette(png_structp png, png_infop info, png_colorp* colors, int* count,
                png_bytep* alphas, int* alpha_count) {
  if (setjmp(png_jmpbuf(png))) return false;
  *alpha_count = 0;
  *alphas = nullptr;
  if (png_get_PLTE(png, info, colors, count) == 0) return false;
  if (png_get_valid(png, info, PNG_INFO_tRNS)) {
    png_get_tRNS(png, info, alphas, alpha_count, nullptr);
  }
  return true;
}

// Palette indices, one byte each in the last quarter of every RGBA8 row,
// expanded to RGBA forward in place (pixel x's 4 bytes end at or before
// index x's byte, which is read first). An index past the end of PLTE is an
// error of the PNG specification (§11.2.3), and refused.
absl::Status ExpandPalette(const std::string& image_name, png_structp png, png_infop info,
                           uint32_t width, uint32_t height, uint8_t* rgba) {
  png_colorp colors = nullptr;
  png_bytep alphas = nullptr;
  int count = 0, alpha_count = 0;
  if (!GetPalette(png, info, &colors, &count, &alphas, &alpha_count)) {
    return absl::InvalidArgumentError(
        absl::StrCat("image '", image_name, "': invalid PNG: missing PLTE"));
  }
  uint32_t table[256];
  for (int i = 0; i < 256; ++i) {
    const png_color c = i < count ? colors[i] : png_color{0, 0, 0};
    const uint32_t a = i < alpha_count ? alphas[i] : 255;
    table[i] = c.red | (uint32_t{c.green} << 8) | (uint32_t{c.blue} << 16) | (a << 24);
  }
  const size_t row_bytes = size_t{width} * 4;
  for (uint32_t y = 0; y < height; ++y) {
    uint8_t* row = rgba + y * row_bytes;
    const uint8_t* indices = row + size_t{width} * 3;
    for (uint32_t x = 0; x < width; ++x) {
      const uint8_t index = indices[x];
      if (index >= count) {
        return absl::InvalidArgumentError(absl::StrCat(
            "image '", image_name, "': invalid PNG: palette index ", int{index}, " at (", x, ", ",
            y, ") is past the end of the ", count, "-entry PLTE"));
      }
      std::memcpy(row + 4 * size_t{x}, &table[index], 4);
    }
  }
  return absl::OkStatus();
}

// libpng allocates (and zeroes) a chunk's declared length before reading
// it, so a 110-byte file claiming a 2 GB zTXt or sPLT costs 2 GB (found by
// fuzzing: tests/fuzz/regressions/png_decode). Every chunk up to the first
// IDAT, where png_read_info stops, must fit in the bytes that remain.
// DecodePngInto's chunk walk does the same for the whole file.
absl::Status CheckChunkLengthsBeforeIdat(const std::string& image_name,
                                         std::span<const std::byte> png) {
  const auto* data = reinterpret_cast<const uint8_t*>(png.data());
  size_t pos = 8;
  while (png.size() - pos >= 8) {
    const uint32_t length = (uint32_t{data[pos]} << 24) | (uint32_t{data[pos + 1]} << 16) |
                            (uint32_t{data[pos + 2]} << 8) | data[pos + 3];
    const std::string type(reinterpret_cast<const char*>(data + pos + 4), 4);
    if (type == "IDAT" || type == "IEND") break;
    if (png.size() - pos < 12 || length > png.size() - pos - 12) {
      return absl::InvalidArgumentError(absl::StrCat(
          "image '", image_name, "': invalid PNG: truncated: chunk ", absl::CEscape(type),
          " declares ", length, " bytes but only ", png.size() - pos - 8,
          " remain in the file"));
    }
    pos += 12 + size_t{length};
  }
  return absl::OkStatus();  // what is left is libpng's to judge
}

}  // namespace

absl::Status CheckPixelLimit(const std::string& image_name, uint32_t width, uint32_t height,
                             uint64_t max_pixels) {
  if (width == 0 || height == 0) {
    return absl::InvalidArgumentError(absl::StrCat("image '", image_name, "': size ", width, "x",
                                                   height, " is empty"));
  }
  const uint64_t pixels = uint64_t{width} * height;  // cannot overflow: 32 x 32 bits
  if (pixels > max_pixels) {
    return absl::ResourceExhaustedError(
        absl::StrCat("image '", image_name, "': ", width, "x", height, " = ", pixels,
                     " pixels exceeds the server's limit of ", max_pixels, " pixels per image"));
  }
  return absl::OkStatus();
}

absl::StatusOr<PngInfo> ReadPngHeader(const std::string& image_name, std::span<const std::byte> png,
                                      uint64_t max_pixels) {
  const auto* bytes = reinterpret_cast<const png_byte*>(png.data());
  if (png.size() < 8 || png_sig_cmp(bytes, 0, 8) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("image '", image_name, "': not a PNG file (bad signature, ", png.size(),
                     " bytes); use a raw encoding for pixel arrays"));
  }
  if (absl::Status s = CheckChunkLengthsBeforeIdat(image_name, png); !s.ok()) return s;
  ErrorSink sink;
  MemoryReader reader{bytes, png.size(), 0};
  ReadStruct read(sink, reader);
  if (!read.ok()) return absl::ResourceExhaustedError("out of memory creating a PNG reader");
  if (!ReadInfo(read.png(), read.info())) return PngError(image_name, sink);

  PngInfo info;
  info.width = png_get_image_width(read.png(), read.info());
  info.height = png_get_image_height(read.png(), read.info());
  info.bit_depth = png_get_bit_depth(read.png(), read.info());
  info.color_type = png_get_color_type(read.png(), read.info());
  info.interlaced = png_get_interlace_type(read.png(), read.info()) != PNG_INTERLACE_NONE;
  info.format = info.bit_depth == 16 ? graph::PixelFormat::kRgba16 : graph::PixelFormat::kRgba8;
  if (absl::Status s = CheckPixelLimit(image_name, info.width, info.height, max_pixels); !s.ok()) {
    return s;
  }
  info.decoded_bytes = uint64_t{info.width} * info.height * RawBytesPerPixel(info.format);
  return info;
}

absl::Status DecodePngInto(const std::string& image_name, std::span<const std::byte> png,
                           const PngInfo& info, std::span<std::byte> dst,
                           const PngDecodeOptions& options) {
  if (dst.size() != info.decoded_bytes) {
    return absl::InternalError(absl::StrCat("image '", image_name, "': decode buffer of ",
                                            dst.size(), " bytes, need ", info.decoded_bytes));
  }
  // The strict walk runs for every file, whichever decoder follows.
  absl::StatusOr<PngChunks> chunks = ParsePngChunks(image_name, png);
  if (!chunks.ok()) return chunks.status();
  if (chunks->width != info.width || chunks->height != info.height ||
      chunks->bit_depth != info.bit_depth) {
    return absl::InternalError(absl::StrCat("image '", image_name, "': header changed"));
  }
  if (options.allow_fast_path && FastDecodeSupports(*chunks)) {
    return DecodePngFast(image_name, *chunks, dst, options.pipelined);
  }

  ErrorSink sink;
  MemoryReader reader{reinterpret_cast<const png_byte*>(png.data()), png.size(), 0};
  ReadStruct read(sink, reader);
  if (!read.ok()) return absl::ResourceExhaustedError("out of memory creating a PNG reader");
  if (!ReadInfo(read.png(), read.info())) return PngError(image_name, sink);
  if (png_get_image_width(read.png(), read.info()) != info.width ||
      png_get_image_height(read.png(), read.info()) != info.height ||
      png_get_bit_depth(read.png(), read.info()) != info.bit_depth) {
    return absl::InternalError(absl::StrCat("image '", image_name, "': header changed"));
  }
  const size_t row_bytes = size_t{info.width} * RawBytesPerPixel(info.format);
  const bool palette = info.color_type == PNG_COLOR_TYPE_PALETTE;
  // Palette indices go to the end of each row (see ExpandPalette).
  const size_t index_offset = palette ? size_t{info.width} * 3 : 0;
  std::vector<png_bytep> rows(info.height);
  for (uint32_t y = 0; y < info.height; ++y) {
    rows[y] = reinterpret_cast<png_bytep>(dst.data()) + y * row_bytes + index_offset;
  }
  if (!ReadPixels(read.png(), read.info(), rows.data())) return PngError(image_name, sink);
  if (sink.strict[0] != '\0') {
    return absl::InvalidArgumentError(
        absl::StrCat("image '", image_name, "': invalid PNG: ", sink.strict));
  }
  if (absl::Status s = CheckIdatStreamEnd(image_name, *chunks); !s.ok()) return s;
  if (palette) {
    return ExpandPalette(image_name, read.png(), read.info(), info.width, info.height,
                         reinterpret_cast<uint8_t*>(dst.data()));
  }
  return absl::OkStatus();
}

namespace {

void AppendToString(png_structp png, png_bytep data, size_t length) {
  static_cast<std::string*>(png_get_io_ptr(png))->append(reinterpret_cast<const char*>(data),
                                                         length);
}

void NoFlush(png_structp) {}

bool WriteImage(png_structp png, png_infop info, uint32_t width, uint32_t height, int bit_depth,
                bool rgb, const PngEncodeOptions& options, png_bytepp rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_IHDR(png, info, width, height, bit_depth,
               rgb ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGB_ALPHA, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_compression_level(png, options.compression_level);
  png_set_filter(png, PNG_FILTER_TYPE_BASE,
                 options.single_fast_filter ? PNG_FILTER_SUB : PNG_ALL_FILTERS);
  png_write_info(png, info);
  // Our rows stay RGBA; libpng drops the (opaque) alpha as a filler.
  if (rgb) png_set_filler(png, 0, PNG_FILLER_AFTER);
  if (bit_depth == 16) png_set_swap(png);  // our RGBA16 is little-endian
  png_write_image(png, rows);
  png_write_end(png, nullptr);
  return true;
}

}  // namespace

bool PipelineDecode(int concurrent_stages, unsigned hardware_threads) {
  return concurrent_stages >= 1 && 2u * static_cast<unsigned>(concurrent_stages) <= hardware_threads;
}

int EncodeThreadsByLoad(int concurrent_stages, unsigned hardware_threads) {
  const unsigned share = hardware_threads / static_cast<unsigned>(std::max(1, concurrent_stages));
  return static_cast<int>(std::clamp(share, 1u, 8u));
}

namespace {

bool UsesFastEncoder(const PngEncodeOptions& options) {
  return options.encoder == PngEncoder::kFast && options.compression_level >= 1 &&
         options.compression_level <= 3;
}

FastEncodeParams FastParamsOf(const PngEncodeOptions& options) {
  int threads = options.threads;
  if (threads <= 0) {
    // More than 8 pieces gains little on a 1080p image and costs size.
    threads = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
  }
  // Level 1 is the fastest (by default the runs coder unless ISA-L level 1
  // codes the piece's sample smaller); levels 2 and 3 are ISA-L's.
  return {.isal_level = options.compression_level,
          .method = options.compression_level == 1 ? options.level1_deflate
                                                    : DeflateMethod::kIsal,
          .filter = options.fast_filter,
          .threads = threads,
          .opaque_as_rgb = options.opaque_as_rgb};
}

}  // namespace

bool EncodesFilteredRows(const PngEncodeOptions& options) {
  return UsesFastEncoder(options) && options.fast_filter == PngRowFilter::kAdaptive &&
         options.opaque_as_rgb;
}

absl::StatusOr<std::string> EncodePngFromFilteredRows(std::span<const std::byte> rows,
                                                      uint32_t width, uint32_t height,
                                                      const PngEncodeOptions& options) {
  if (!EncodesFilteredRows(options)) {
    return absl::InternalError("EncodePngFromFilteredRows: options the rows do not fit");
  }
  return EncodePngFilteredRgb8(rows, width, height, FastParamsOf(options));
}

absl::StatusOr<std::string> EncodePng(std::span<const std::byte> pixels, uint32_t width,
                                      uint32_t height, graph::PixelFormat format,
                                      const PngEncodeOptions& options) {
  if (format != graph::PixelFormat::kRgba8 && format != graph::PixelFormat::kRgba16) {
    return absl::InvalidArgumentError("PNG output needs RGBA8 or RGBA16 pixels");
  }
  if (options.compression_level < 0 || options.compression_level > 9) {
    return absl::InvalidArgumentError(absl::StrCat("PNG compression level ",
                                                   options.compression_level,
                                                   " is out of range [0, 9]"));
  }
  const uint64_t bpp = RawBytesPerPixel(format);
  if (width == 0 || height == 0 || pixels.size() != uint64_t{width} * height * bpp) {
    return absl::InternalError(absl::StrCat("EncodePng: ", pixels.size(), " bytes for ", width,
                                            "x", height));
  }
  if (UsesFastEncoder(options)) {
    return EncodePngFast(pixels, width, height, format == graph::PixelFormat::kRgba16,
                         FastParamsOf(options));
  }
  std::string out;
  // A guess that avoids most regrowth for photographic content at level 1.
  out.reserve(pixels.size() / 2 + 1024);
  ErrorSink sink;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, OnError, OnWarning);
  if (png == nullptr) return absl::ResourceExhaustedError("out of memory creating a PNG writer");
  png_infop info = png_create_info_struct(png);
  png_set_write_fn(png, &out, AppendToString, NoFlush);
  std::vector<png_bytep> rows(height);
  const size_t row_bytes = size_t{width} * bpp;
  for (uint32_t y = 0; y < height; ++y) {
    // libpng's API takes non-const rows but does not write to them.
    rows[y] = const_cast<png_bytep>(reinterpret_cast<const png_byte*>(pixels.data())) +
              y * row_bytes;
  }
  const bool sixteen_bit = format == graph::PixelFormat::kRgba16;
  const bool rgb = options.opaque_as_rgb && AllOpaque(pixels, sixteen_bit);
  const bool ok = WriteImage(png, info, width, height, sixteen_bit ? 16 : 8, rgb, options,
                             rows.data());
  png_destroy_write_struct(&png, info ? &info : nullptr);
  if (!ok) return absl::InternalError(absl::StrCat("PNG encode failed: ", sink.message));
  return out;
}

absl::StatusOr<uint64_t> CheckRawImage(const std::string& image_name, graph::PixelFormat format,
                                       uint32_t width, uint32_t height, uint64_t data_bytes,
                                       uint64_t max_pixels) {
  if (absl::Status s = CheckPixelLimit(image_name, width, height, max_pixels); !s.ok()) return s;
  uint64_t expected = 0;
  if (__builtin_mul_overflow(uint64_t{width} * height, RawBytesPerPixel(format), &expected)) {
    return absl::ResourceExhaustedError(absl::StrCat("image '", image_name, "' is too large"));
  }
  if (data_bytes != expected) {
    return absl::InvalidArgumentError(absl::StrCat(
        "image '", image_name, "': ", data_bytes, " bytes of data, but ", width, "x", height,
        " ", RawName(format), " needs ", expected, " (width * height * ",
        RawBytesPerPixel(format), ")"));
  }
  return expected;
}

}  // namespace rgfx::service
