#include "service/png_fast_encode.h"

#include <isa-l/igzip_lib.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "service/deflate_runs.h"
#include "service/png_chunks.h"
#include "service/png_filters.h"
#include "service/thread_name.h"

namespace rgfx::service {
namespace {

// Rows are filtered this many bytes at a time and handed to deflate, so the
// filtered bytes are still in cache when ISA-L reads them.
constexpr size_t kSlabBytes = 256 << 10;
// Room added to the output each time ISA-L fills it.
constexpr size_t kOutputStep = 256 << 10;

size_t LevelBufferBytes(int level, bool small) {
  switch (level) {
    case 1: return small ? ISAL_DEF_LVL1_MIN : ISAL_DEF_LVL1_DEFAULT;
    case 2: return small ? ISAL_DEF_LVL2_MIN : ISAL_DEF_LVL2_DEFAULT;
    case 3: return small ? ISAL_DEF_LVL3_MIN : ISAL_DEF_LVL3_DEFAULT;
    default: return 0;
  }
}

void PutU32(uint8_t* p, uint32_t v) {
  p[0] = uint8_t(v >> 24);
  p[1] = uint8_t(v >> 16);
  p[2] = uint8_t(v >> 8);
  p[3] = uint8_t(v);
}

struct Image {
  const uint8_t* pixels;
  uint32_t width;
  uint32_t height;
  bool sixteen_bit;
  size_t row_bytes;  // raw RGBA row
  bool rgb;          // written without its (all opaque) alpha channel
  size_t png_row_bytes;  // a row as the PNG stores it
  // Scanlines filtered already (a filter byte, then png_row_bytes), one
  // after another; null when the encoder filters `pixels` itself.
  const uint8_t* filtered = nullptr;
};

// One piece: rows [first_row, end_row) compressed alone.
struct Piece {
  uint32_t first_row = 0;
  uint32_t end_row = 0;
  bool last = false;
  std::vector<uint8_t> deflate;  // raw deflate blocks
  uint32_t adler = 1;            // adler32 of this piece's filtered bytes
  uint64_t filtered_bytes = 0;
  int error = 0;  // an ISA-L error code; 0 when fine
};

// Picks the filter for one row and writes the filter byte and the row.
// `chosen` carries kAdaptive's last choice, made again when `choose`.
void FilterOne(PngRowFilter choice, int bpp, const uint8_t* row, const uint8_t* prev, uint8_t* out,
               size_t n, bool choose, uint8_t& chosen) {
  uint8_t filter = kPngFilterPaeth;
  switch (choice) {
    case PngRowFilter::kNone: filter = kPngFilterNone; break;
    case PngRowFilter::kSub: filter = kPngFilterSub; break;
    case PngRowFilter::kUp: filter = kPngFilterUp; break;
    case PngRowFilter::kPaeth: filter = kPngFilterPaeth; break;
    case PngRowFilter::kAverage: filter = kPngFilterAverage; break;
    case PngRowFilter::kAdaptive:
      // The row's own output space is the scratch: it is written below.
      if (choose) chosen = ChooseRowFilter(bpp, row, prev, out + 1, n);
      filter = chosen;
      break;
  }
  out[0] = filter;
  FilterRow(filter, bpp, row, prev, out + 1, n);
}

// ISA-L's deflate of one piece, fed slab by slab.
class IsalCoder {
 public:
  // Small pieces get ISA-L's smallest level buffer (its minimum is 24-90
  // KiB, its default 280-350 KiB): small images stay cheap to encode.
  IsalCoder(int level, bool small_piece)
      : level_buf_(new uint8_t[LevelBufferBytes(level, small_piece) + 1]) {
    isal_deflate_init(&stream_);
    stream_.level = static_cast<uint32_t>(level);
    stream_.level_buf = level_buf_.get();
    stream_.level_buf_size = static_cast<uint32_t>(LevelBufferBytes(level, small_piece));
    stream_.gzip_flag = IGZIP_DEFLATE;
  }

  // Deflates `bytes` (then ends the stream, or flushes as `flush` says)
  // into `out` from `used` on, growing it; returns ISA-L's error code, 0
  // when fine.
  int Deflate(const uint8_t* data, size_t bytes, bool end_of_stream, int flush,
              std::vector<uint8_t>& out, size_t& used) {
    // ISA-L's API takes non-const input but only reads it.
    stream_.next_in = const_cast<uint8_t*>(data);
    stream_.avail_in = static_cast<uint32_t>(bytes);
    stream_.end_of_stream = end_of_stream ? 1 : 0;
    stream_.flush = flush;
    // ISA-L returns when it has run out of input or of output; with room
    // left over, everything given (and the flush) has been written.
    do {
      if (out.size() - used < 1024) {
        // Grows geometrically (resize beyond capacity doubles it).
        out.resize(std::max(out.capacity(), out.size() + 4096));
      }
      stream_.next_out = out.data() + used;
      stream_.avail_out = static_cast<uint32_t>(out.size() - used);
      const uint32_t room = stream_.avail_out;
      if (const int rc = isal_deflate(&stream_); rc != COMP_OK) return rc;
      used += room - stream_.avail_out;
    } while (stream_.avail_out == 0 || stream_.avail_in > 0 ||
             (stream_.end_of_stream && stream_.internal_state.state != ZSTATE_END));
    return 0;
  }

 private:
  std::unique_ptr<uint8_t[]> level_buf_;
  isal_zstream stream_;
};

void CompressPiece(const Image& image, const FastEncodeParams& params, Piece& piece) {
  const int bpp = (image.rgb ? 3 : 4) * (image.sixteen_bit ? 2 : 1);
  const size_t n = image.png_row_bytes;
  const size_t stride = n + 1;
  const size_t rows_per_slab =
      std::clamp<size_t>(kSlabBytes / stride, 1, piece.end_row - piece.first_row);
  std::unique_ptr<uint8_t[]> slab(image.filtered ? nullptr : new uint8_t[rows_per_slab * stride]);
  std::vector<uint8_t> zero_row(n, 0);
  uint8_t chosen = kPngFilterPaeth;
  const uint32_t step = static_cast<uint32_t>(std::max(1, params.adaptive_row_step));
  // 16-bit rows are swapped to PNG's big-endian order, and RGB rows lose
  // their alpha, before filtering; the previous row is kept converted too.
  std::vector<uint8_t> converted[2];
  auto raw_row = [&](uint32_t y, int slot) -> const uint8_t* {
    const uint8_t* row = image.pixels + size_t{y} * image.row_bytes;
    if (!image.sixteen_bit && !image.rgb) return row;
    std::vector<uint8_t>& out = converted[slot];
    out.resize(n);
    if (!image.sixteen_bit) {
      for (uint32_t x = 0; x < image.width; ++x) {
        std::memcpy(&out[3 * size_t{x}], row + 4 * size_t{x}, 3);
      }
    } else {
      const size_t channels = image.rgb ? 3 : 4;
      for (uint32_t x = 0; x < image.width; ++x) {
        for (size_t c = 0; c < channels; ++c) {
          out[(x * channels + c) * 2] = row[(size_t{x} * 4 + c) * 2 + 1];
          out[(x * channels + c) * 2 + 1] = row[(size_t{x} * 4 + c) * 2];
        }
      }
    }
    return out.data();
  };

  const uint64_t piece_bytes = uint64_t{piece.end_row - piece.first_row} * stride;
  const bool sample = params.method == DeflateMethod::kSmallerOnSample;
  std::optional<IsalCoder> isal;
  if (params.method != DeflateMethod::kRuns) {
    isal.emplace(params.isal_level, piece_bytes < kSlabBytes);
    piece.deflate.reserve(std::min<uint64_t>(piece_bytes + 1024, 4 * kOutputStep));
  }
  std::vector<uint8_t> by_runs;
  std::optional<RunsDeflater> runs;
  if (params.method != DeflateMethod::kIsal) runs.emplace(by_runs);

  int slot = 0;
  const uint8_t* prev = piece.first_row == 0 || image.filtered ? zero_row.data()
                                                               : raw_row(piece.first_row - 1, 1);
  size_t out_used = 0;
  for (uint32_t y0 = piece.first_row; y0 < piece.end_row;) {
    const size_t rows = std::min<size_t>(rows_per_slab, piece.end_row - y0);
    // Filtered scanlines are deflated where they lie.
    const uint8_t* filtered = image.filtered ? image.filtered + size_t{y0} * stride : slab.get();
    for (size_t r = 0; r < rows && !image.filtered; ++r) {
      const uint8_t* row = raw_row(y0 + static_cast<uint32_t>(r), slot);
      const uint32_t y = y0 + static_cast<uint32_t>(r);
      FilterOne(params.filter, bpp, row, prev, slab.get() + r * stride, n,
                (y - piece.first_row) % step == 0, chosen);
      prev = row;
      slot ^= 1;  // the row just filtered stays valid as `prev`
    }
    const size_t bytes = rows * stride;
    piece.adler = isal_adler32(piece.adler, filtered, bytes);
    piece.filtered_bytes += bytes;
    const bool first_slab = y0 == piece.first_row;
    y0 += static_cast<uint32_t>(rows);
    const bool final_slab = y0 == piece.end_row;
    if (runs) {
      runs->Block({filtered, bytes}, final_slab && piece.last);
      if (final_slab) runs->Finish();
    }
    if (isal) {
      // The sample is flushed so that its bytes can be counted.
      const int flush = final_slab && !piece.last ? FULL_FLUSH
                        : sample && first_slab    ? SYNC_FLUSH
                                                  : NO_FLUSH;
      piece.error = isal->Deflate(filtered, bytes, final_slab && piece.last, flush,
                                  piece.deflate, out_used);
      if (piece.error != 0) return;
    }
    if (sample && first_slab) {
      // One coder goes on; the other's bytes are dropped.
      if (runs->Bytes() <= out_used) {
        isal.reset();
      } else {
        runs.reset();
      }
    }
  }
  if (runs) {
    piece.deflate = std::move(by_runs);
  } else {
    piece.deflate.resize(out_used);
  }
}

// True when every alpha sample is the maximum (255 or 65535).
// Appends one chunk whose data is the concatenation of `parts`.
void AppendChunk(std::string& out, const char type[4],
                 std::initializer_list<std::span<const uint8_t>> parts) {
  size_t length = 0;
  for (auto part : parts) length += part.size();
  uint8_t head[8];
  PutU32(head, static_cast<uint32_t>(length));
  std::memcpy(head + 4, type, 4);
  out.append(reinterpret_cast<const char*>(head), 8);
  uint32_t crc = PngCrc32(0, head + 4, 4);
  for (auto part : parts) {
    out.append(reinterpret_cast<const char*>(part.data()), part.size());
    crc = PngCrc32(crc, part.data(), part.size());
  }
  uint8_t tail[4];
  PutU32(tail, crc);
  out.append(reinterpret_cast<const char*>(tail), 4);
}

// The pieces compressed on up to params.threads threads, then the file.
absl::StatusOr<std::string> EncodeImage(const Image& image, const FastEncodeParams& params) {
  if (params.isal_level < 0 || params.isal_level > 3) {
    return absl::InvalidArgumentError(absl::StrCat("ISA-L level ", params.isal_level));
  }
  const uint32_t width = image.width, height = image.height;
  const bool sixteen_bit = image.sixteen_bit;
  // Pieces: as many as threads, but none below min_piece_bytes.
  const uint64_t filtered_total = uint64_t{height} * (image.png_row_bytes + 1);
  const uint64_t by_size = std::max<uint64_t>(1, filtered_total / std::max<size_t>(
                                                      1, params.min_piece_bytes));
  const uint32_t piece_count = static_cast<uint32_t>(
      std::min<uint64_t>({by_size, uint64_t(std::max(1, params.threads)), height}));
  std::vector<Piece> pieces(piece_count);
  for (uint32_t i = 0; i < piece_count; ++i) {
    pieces[i].first_row = static_cast<uint32_t>(uint64_t{height} * i / piece_count);
    pieces[i].end_row = static_cast<uint32_t>(uint64_t{height} * (i + 1) / piece_count);
    pieces[i].last = i + 1 == piece_count;
  }
  {
    std::vector<std::jthread> workers;
    workers.reserve(piece_count - 1);
    std::vector<uint32_t> on_this_thread = {0};
    for (uint32_t i = 1; i < piece_count; ++i) {
      try {
        workers.emplace_back([&, i] {
          NameThisThread("rgfx-deflate");
          CompressPiece(image, params, pieces[i]);
        });
      } catch (const std::system_error&) {
        on_this_thread.push_back(i);  // no thread to be had (limits): do it here
      }
    }
    for (uint32_t i : on_this_thread) CompressPiece(image, params, pieces[i]);
  }  // joins

  uint32_t adler = pieces[0].adler;
  size_t deflate_bytes = 0;
  for (uint32_t i = 0; i < piece_count; ++i) {
    if (pieces[i].error != 0) {
      return absl::InternalError(absl::StrCat("ISA-L deflate failed: ", pieces[i].error));
    }
    if (i > 0) {
      adler = static_cast<uint32_t>(adler32_combine(
          adler, pieces[i].adler, static_cast<z_off_t>(pieces[i].filtered_bytes)));
    }
    deflate_bytes += pieces[i].deflate.size();
  }

  std::string out;
  out.reserve(deflate_bytes + 64 + 12 * size_t{piece_count});
  out.append("\x89PNG\r\n\x1a\n", 8);
  uint8_t ihdr[13];
  PutU32(ihdr, width);
  PutU32(ihdr + 4, height);
  ihdr[8] = sixteen_bit ? 16 : 8;
  ihdr[9] = image.rgb ? 2 : 6;  // RGB or RGBA
  ihdr[10] = ihdr[11] = ihdr[12] = 0;  // deflate, adaptive filtering, no interlace
  AppendChunk(out, "IHDR", {std::span<const uint8_t>(ihdr)});
  // zlib header: deflate with a 32 KiB window, "fastest" level hint; the
  // check bits make 0x7801 a multiple of 31.
  const uint8_t zlib_header[2] = {0x78, 0x01};
  uint8_t zlib_trailer[4];
  PutU32(zlib_trailer, adler);
  // One IDAT per piece (a chunk holds at most 2^31 - 1 bytes; split beyond).
  constexpr size_t kMaxIdat = size_t{1} << 30;
  for (uint32_t i = 0; i < piece_count; ++i) {
    std::span<const uint8_t> data(pieces[i].deflate);
    std::span<const uint8_t> head = i == 0 ? std::span<const uint8_t>(zlib_header)
                                           : std::span<const uint8_t>();
    do {
      const std::span<const uint8_t> part = data.first(std::min(kMaxIdat, data.size()));
      data = data.subspan(part.size());
      const bool ends = data.empty() && pieces[i].last;
      AppendChunk(out, "IDAT",
                  {head, part, ends ? std::span<const uint8_t>(zlib_trailer)
                                    : std::span<const uint8_t>()});
      head = {};
    } while (!data.empty());
  }
  AppendChunk(out, "IEND", {});
  return out;
}

}  // namespace

absl::StatusOr<std::string> EncodePngFast(std::span<const std::byte> pixels, uint32_t width,
                                          uint32_t height, bool sixteen_bit,
                                          const FastEncodeParams& params) {
  Image image{reinterpret_cast<const uint8_t*>(pixels.data()), width, height, sixteen_bit,
              size_t{width} * (sixteen_bit ? 8 : 4), false, 0};
  if (width == 0 || height == 0 || pixels.size() != image.row_bytes * height) {
    return absl::InternalError(absl::StrCat("EncodePngFast: ", pixels.size(), " bytes for ",
                                            width, "x", height));
  }
  image.rgb = params.opaque_as_rgb && AllOpaque(pixels, sixteen_bit);
  image.png_row_bytes = image.rgb ? image.row_bytes / 4 * 3 : image.row_bytes;
  return EncodeImage(image, params);
}

absl::StatusOr<std::string> EncodePngFilteredRgb8(std::span<const std::byte> rows, uint32_t width,
                                                  uint32_t height, const FastEncodeParams& params) {
  const size_t png_row_bytes = size_t{width} * 3;
  if (width == 0 || height == 0 || rows.size() != (png_row_bytes + 1) * height) {
    return absl::InternalError(absl::StrCat("EncodePngFilteredRgb8: ", rows.size(),
                                            " bytes for ", width, "x", height));
  }
  const auto* filtered = reinterpret_cast<const uint8_t*>(rows.data());
  for (uint32_t y = 0; y < height; ++y) {
    // A filter type past Paeth would make a file no decoder reads.
    if (filtered[(png_row_bytes + 1) * y] > kPngFilterPaeth) {
      return absl::InternalError(absl::StrCat("EncodePngFilteredRgb8: row ", y, " has filter type ",
                                              int(filtered[(png_row_bytes + 1) * y])));
    }
  }
  const Image image{nullptr, width, height, false, size_t{width} * 4, true, png_row_bytes, filtered};
  return EncodeImage(image, params);
}

bool AllOpaque(std::span<const std::byte> pixels, bool sixteen_bit) {
  const std::byte* data = pixels.data();
  if (!sixteen_bit) {
    // Alpha is the top byte of each little-endian 32-bit pixel.
    const size_t count = pixels.size() / 4;
    uint32_t all = 0xff000000u;
    for (size_t i = 0; i < count; ++i) {
      uint32_t px;
      std::memcpy(&px, data + 4 * i, 4);
      all &= px;
      if ((i & 4095) == 4095 && (all & 0xff000000u) != 0xff000000u) return false;  // stop early
    }
    return (all & 0xff000000u) == 0xff000000u;
  }
  for (size_t i = 0; i < pixels.size() / 8; ++i) {
    if (data[8 * i + 6] != std::byte{0xff} || data[8 * i + 7] != std::byte{0xff}) return false;
  }
  return true;
}

}  // namespace rgfx::service
