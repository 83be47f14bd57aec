#include "service/png_fast_decode.h"

#include <isa-l/igzip_lib.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "service/png_filters.h"
#include "service/thread_name.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <tmmintrin.h>
#define RGFX_PNG_X86 1
#endif

namespace rgfx::service {
namespace {

// Rows are inflated this many bytes at a time: small enough to stay in L2
// between inflate, unfilter and expansion, large enough that the per-call
// overhead of isal_inflate is noise.
constexpr size_t kSlabBytes = 256 << 10;
// The expansion loops read 16 bytes at a time and may look past a row.
constexpr size_t kSlabPadding = 16;
// Pipelined decoding: slabs in flight between the inflating thread and the
// unfiltering one, and the fewest slabs for which a thread is worth it.
constexpr uint32_t kRingSlabs = 4;
constexpr uint32_t kMinPipelinedSlabs = 3;

const char* IsalInflateError(int code) {
  switch (code) {
    case ISAL_INVALID_BLOCK: return "invalid deflate block";
    case ISAL_INVALID_SYMBOL: return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK: return "invalid deflate distance";
    case ISAL_INVALID_WRAPPER: return "invalid zlib header";
    case ISAL_UNSUPPORTED_METHOD: return "unsupported zlib compression method";
    case ISAL_INCORRECT_CHECKSUM: return "incorrect zlib checksum (adler32)";
    case ISAL_NEED_DICT: return "zlib stream needs a preset dictionary";
    default: return "corrupt zlib data";
  }
}

// ---- Expansion of unfiltered rows to RGBA8 / RGBA16 little-endian ----------

void Gray8ToRgba8(const uint8_t* in, uint8_t* out, uint32_t width) {
  for (uint32_t x = 0; x < width; ++x) {
    const uint32_t g = in[x];
    const uint32_t px = g | (g << 8) | (g << 16) | 0xff000000u;
    std::memcpy(out + 4 * size_t{x}, &px, 4);
  }
}

void GrayAlpha8ToRgba8(const uint8_t* in, uint8_t* out, uint32_t width) {
  for (uint32_t x = 0; x < width; ++x) {
    const uint32_t g = in[2 * x], a = in[2 * x + 1];
    const uint32_t px = g | (g << 8) | (g << 16) | (a << 24);
    std::memcpy(out + 4 * size_t{x}, &px, 4);
  }
}

void Rgb8ToRgba8Scalar(const uint8_t* in, uint8_t* out, uint32_t width, uint32_t from) {
  for (uint32_t x = from; x < width; ++x) {
    out[4 * size_t{x}] = in[3 * size_t{x}];
    out[4 * size_t{x} + 1] = in[3 * size_t{x} + 1];
    out[4 * size_t{x} + 2] = in[3 * size_t{x} + 2];
    out[4 * size_t{x} + 3] = 0xff;
  }
}

#ifdef RGFX_PNG_X86
// pshufb spreads 4 RGB pixels (12 bytes) over 16 and the OR sets alpha.
// SSSE3 is in every x86-64 CPU since 2006 but not in the base ISA, hence the
// target attribute and the run-time check.
__attribute__((target("ssse3"))) void Rgb8ToRgba8Ssse3(const uint8_t* in, uint8_t* out,
                                                        uint32_t width) {
  const __m128i shuffle = _mm_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
  const __m128i alpha = _mm_set1_epi32(static_cast<int>(0xff000000u));
  uint32_t x = 0;
  for (; x + 4 <= width; x += 4) {  // reads 16 bytes for 12: the slab is padded
    const __m128i rgb = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 3 * size_t{x}));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 4 * size_t{x}),
                     _mm_or_si128(_mm_shuffle_epi8(rgb, shuffle), alpha));
  }
  Rgb8ToRgba8Scalar(in, out, width, x);
}

const bool kHasSsse3 = __builtin_cpu_supports("ssse3");
#endif

void Rgb8ToRgba8(const uint8_t* in, uint8_t* out, uint32_t width) {
#ifdef RGFX_PNG_X86
  if (kHasSsse3) return Rgb8ToRgba8Ssse3(in, out, width);
#endif
  Rgb8ToRgba8Scalar(in, out, width, 0);
}

// 16-bit samples: PNG stores them big-endian, raw RGBA16 is little-endian.
inline void Put16(uint8_t* out, const uint8_t* big_endian) {
  out[0] = big_endian[1];
  out[1] = big_endian[0];
}

void Rgba16ToRgba16(const uint8_t* in, uint8_t* out, uint32_t width) {
  const size_t n = size_t{width} * 8;
  size_t i = 0;
#ifdef RGFX_PNG_X86
  for (; i + 16 <= n; i += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm_or_si128(_mm_slli_epi16(x, 8), _mm_srli_epi16(x, 8)));
  }
#endif
  for (; i < n; i += 2) Put16(out + i, in + i);
}

void Rgb16ToRgba16(const uint8_t* in, uint8_t* out, uint32_t width) {
  for (uint32_t x = 0; x < width; ++x) {
    const uint8_t* p = in + 6 * size_t{x};
    uint8_t* q = out + 8 * size_t{x};
    Put16(q, p);
    Put16(q + 2, p + 2);
    Put16(q + 4, p + 4);
    q[6] = q[7] = 0xff;
  }
}

void GrayAlpha16ToRgba16(const uint8_t* in, uint8_t* out, uint32_t width) {
  for (uint32_t x = 0; x < width; ++x) {
    const uint8_t* p = in + 4 * size_t{x};
    uint8_t* q = out + 8 * size_t{x};
    Put16(q, p);
    Put16(q + 2, p);
    Put16(q + 4, p);
    Put16(q + 6, p + 2);
  }
}

void Gray16ToRgba16(const uint8_t* in, uint8_t* out, uint32_t width) {
  for (uint32_t x = 0; x < width; ++x) {
    const uint8_t* p = in + 2 * size_t{x};
    uint8_t* q = out + 8 * size_t{x};
    Put16(q, p);
    Put16(q + 2, p);
    Put16(q + 4, p);
    q[6] = q[7] = 0xff;
  }
}

using ExpandFn = void (*)(const uint8_t* in, uint8_t* out, uint32_t width);

// nullptr for RGBA8, which is unfiltered straight into the destination.
ExpandFn ExpandFor(int color_type, int bit_depth) {
  const bool sixteen = bit_depth == 16;
  switch (color_type) {
    case 0: return sixteen ? Gray16ToRgba16 : Gray8ToRgba8;
    case 2: return sixteen ? Rgb16ToRgba16 : Rgb8ToRgba8;
    case 4: return sixteen ? GrayAlpha16ToRgba16 : GrayAlpha8ToRgba8;
    case 6: return sixteen ? Rgba16ToRgba16 : nullptr;
    default: return nullptr;
  }
}

// Feeds the IDAT pieces to ISA-L in order, as one zlib stream.
class IdatInflater {
 public:
  IdatInflater(const std::string& image_name, const PngChunks& chunks)
      : image_name_(image_name), idat_(chunks.idat) {
    isal_inflate_init(&state_);
    state_.crc_flag = ISAL_ZLIB;  // parse the zlib header, verify the adler32
  }

  // Fills exactly `size` bytes of `out`.
  absl::Status Fill(uint8_t* out, size_t size) {
    // ISA-L counts in 32 bits; one row of a very wide image may not fit.
    constexpr size_t kMaxStep = size_t{1} << 30;
    for (size_t done = 0; done < size; done += kMaxStep) {
      if (absl::Status s = FillSome(out + done, std::min(kMaxStep, size - done)); !s.ok()) {
        return s;
      }
    }
    return absl::OkStatus();
  }

 private:
  absl::Status FillSome(uint8_t* out, size_t size) {
    state_.next_out = out;
    state_.avail_out = static_cast<uint32_t>(size);
    while (state_.avail_out > 0) {
      if (state_.block_state == ISAL_BLOCK_FINISH) {
        return Invalid("not enough image data: the zlib stream ends before the last row");
      }
      if (state_.avail_in == 0 && next_ < idat_.size()) {
        NextPiece();
        continue;
      }
      // Even without input left ISA-L may hold decoded bytes to hand out.
      if (absl::Status s = Step(); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

 public:
  // After the last row: the stream must end (checksum included) without
  // producing more bytes, and no compressed bytes may follow it.
  absl::Status Finish() { return ReadToEnd(/*allow_more_data=*/false); }

  // Inflates the whole stream, discarding the bytes, and checks how it ends.
  absl::Status Skip() { return ReadToEnd(/*allow_more_data=*/true); }

  // The zlib header (RFC 1950 §2.2), checked before ISA-L sees it so both
  // decoders refuse the same headers: deflate, a window of at most 32 KiB,
  // a valid check value, no preset dictionary.
  absl::Status CheckHeader() const {
    uint8_t header[2];
    size_t have = 0;
    for (size_t i = 0; i < idat_.size() && have < 2; ++i) {
      for (size_t j = 0; j < idat_[i].size() && have < 2; ++j) header[have++] = idat_[i][j];
    }
    if (have < 2) return Invalid("truncated: no zlib header in IDAT");
    if ((header[0] & 0x0f) != 8 || (header[0] >> 4) > 7 ||
        ((header[0] << 8) | header[1]) % 31 != 0 || (header[1] & 0x20) != 0) {
      return Invalid("invalid zlib header in IDAT (", int{header[0]}, ", ", int{header[1]}, ")");
    }
    return absl::OkStatus();
  }

 private:
  absl::Status ReadToEnd(bool allow_more_data) {
    uint8_t extra[16 << 10];
    while (state_.block_state != ISAL_BLOCK_FINISH) {
      if (state_.avail_in == 0 && next_ < idat_.size()) {
        NextPiece();
        continue;
      }
      state_.next_out = extra;
      state_.avail_out = sizeof(extra);
      if (absl::Status s = Step(); !s.ok()) return s;
      if (!allow_more_data && state_.avail_out != sizeof(extra)) {
        return Invalid("too much image data: the zlib stream goes on after the last row");
      }
    }
    // Compressed bytes after the end of the stream are an error (libpng
    // warns of them in the same IDAT, which the libpng path turns into an
    // error, but skips later IDATs silently: CheckIdatStreamEnd).
    uint64_t left = state_.avail_in;
    for (size_t i = next_; i < idat_.size(); ++i) left += idat_[i].size();
    if (left > 0) return Invalid(left, " bytes of IDAT data after the end of the zlib stream");
    return absl::OkStatus();
  }

  void NextPiece() {
    // ISA-L's API is not const-correct; it never writes through next_in.
    state_.next_in = const_cast<uint8_t*>(idat_[next_].data());
    state_.avail_in = static_cast<uint32_t>(idat_[next_].size());
    ++next_;
  }

  absl::Status Step() {
    const uint32_t in_before = state_.avail_in, out_before = state_.avail_out;
    const int result = isal_inflate(&state_);
    if (result < 0 || result == ISAL_NEED_DICT) return Invalid(IsalInflateError(result));
    if (state_.avail_in == in_before && state_.avail_out == out_before &&
        state_.block_state != ISAL_BLOCK_FINISH) {
      // No progress: never loop forever.
      if (state_.avail_in == 0 && next_ == idat_.size()) {
        return Invalid("truncated: not enough image data (the zlib stream does not end)");
      }
      return Invalid("corrupt zlib data");
    }
    return absl::OkStatus();
  }

  template <typename... Parts>
  absl::Status Invalid(const Parts&... parts) const {
    return absl::InvalidArgumentError(
        absl::StrCat("image '", image_name_, "': invalid PNG: ", parts...));
  }

  const std::string& image_name_;
  const std::vector<std::span<const uint8_t>>& idat_;
  size_t next_ = 0;
  inflate_state state_;
};

}  // namespace

bool FastDecodeSupports(const PngChunks& chunks) {
  return !chunks.interlaced && chunks.trns.empty() &&
         (chunks.bit_depth == 8 || chunks.bit_depth == 16) && chunks.color_type != 3;
}

absl::Status DecodePngFast(const std::string& image_name, const PngChunks& chunks,
                           std::span<std::byte> dst, bool pipelined) {
  const size_t sample_bytes = size_t(chunks.bit_depth / 8);
  const int bpp = PngChannels(chunks.color_type) * static_cast<int>(sample_bytes);
  const size_t row_bytes = size_t{chunks.width} * bpp;
  const size_t stride = row_bytes + 1;  // the filter type byte, then the row
  const size_t dst_row_bytes = size_t{chunks.width} * 4 * sample_bytes;
  if (!FastDecodeSupports(chunks) || dst.size() != dst_row_bytes * chunks.height) {
    return absl::InternalError(absl::StrCat("image '", image_name, "': fast decode misused"));
  }
  auto* out = reinterpret_cast<uint8_t*>(dst.data());
  const ExpandFn expand = ExpandFor(chunks.color_type, chunks.bit_depth);
  const size_t rows_per_slab = std::clamp<size_t>(kSlabBytes / stride, 1, chunks.height);
  // new[] without value-initialisation: every byte used is inflated first.
  std::unique_ptr<uint8_t[]> slab(new uint8_t[rows_per_slab * stride + kSlabPadding]);
  // Non-RGBA8 rows are reconstructed into three rotating row buffers
  // (padded for the 16-byte reads of the expansion), then expanded. Not in
  // place in the slab: the SIMD loops store 4 or 8 bytes per 3- or 6-byte
  // pixel, and the next pixel's load overlapping that store would stall
  // store-to-load forwarding on every pixel. Three, not two: a pair of Paeth
  // rows writes two buffers while reading the row above from the third.
  std::vector<uint8_t> rows_buffer[3] = {std::vector<uint8_t>(row_bytes + kSlabPadding, 0),
                                         std::vector<uint8_t>(row_bytes + kSlabPadding, 0),
                                         std::vector<uint8_t>(row_bytes + kSlabPadding, 0)};
  const std::vector<uint8_t> zero_row(row_bytes, 0);
  IdatInflater inflater(image_name, chunks);
  if (absl::Status s = inflater.CheckHeader(); !s.ok()) return s;

  // Where row y is reconstructed: the destination itself for RGBA8 (the row
  // above is the destination's too: cached memory, see DESIGN.md §9), else
  // a row buffer that `expand` then widens into the destination.
  auto row_out = [&](size_t y) {
    return expand == nullptr ? out + y * dst_row_bytes : rows_buffer[y % 3].data();
  };
  auto row_above = [&](size_t y) -> const uint8_t* {
    return y == 0 ? zero_row.data() : row_out(y - 1);
  };
  // Unfilters and expands slab k (rows [k * rows_per_slab, ...)).
  auto unfilter_slab = [&](const uint8_t* slab, uint32_t k) -> absl::Status {
    const size_t y0 = size_t{k} * rows_per_slab;
    const size_t rows = std::min<size_t>(rows_per_slab, chunks.height - y0);
    for (size_t r = 0; r < rows;) {
      const size_t y = y0 + r;
      const uint8_t* filtered = slab + r * stride;
      // Two Paeth rows in a row (the usual case in photographs): one pass
      // over both, their dependency chains interleaved.
      size_t done = 1;
      if (r + 1 < rows && filtered[0] == kPngFilterPaeth && filtered[stride] == kPngFilterPaeth &&
          UnfilterPaethRowPair(bpp, filtered + 1, filtered + stride + 1, row_above(y), row_out(y),
                               row_out(y + 1), row_bytes)) {
        done = 2;
      } else if (!UnfilterRow(filtered[0], bpp, filtered + 1, row_above(y), row_out(y),
                              row_bytes)) {
        return absl::InvalidArgumentError(absl::StrCat("image '", image_name,
                                                       "': invalid PNG: bad filter type ",
                                                       int{filtered[0]}, " in row ", y));
      }
      if (expand != nullptr) {
        for (size_t d = 0; d < done; ++d) {
          expand(row_out(y + d), out + (y + d) * dst_row_bytes, chunks.width);
        }
      }
      r += done;
    }
    return absl::OkStatus();
  };
  auto slab_fill_bytes = [&](uint32_t k) {
    return std::min<size_t>(rows_per_slab, chunks.height - size_t{k} * rows_per_slab) * stride;
  };
  const uint32_t slab_count =
      static_cast<uint32_t>((chunks.height + rows_per_slab - 1) / rows_per_slab);
  const size_t slab_bytes = rows_per_slab * stride + kSlabPadding;

  auto sequential = [&]() -> absl::Status {
    std::unique_ptr<uint8_t[]> slab(new uint8_t[slab_bytes]);
    for (uint32_t k = 0; k < slab_count; ++k) {
      if (absl::Status s = inflater.Fill(slab.get(), slab_fill_bytes(k)); !s.ok()) return s;
      if (absl::Status s = unfilter_slab(slab.get(), k); !s.ok()) return s;
    }
    return inflater.Finish();
  };
  if (!pipelined || slab_count < kMinPipelinedSlabs) return sequential();

  // Pipelined: a helper thread inflates into a ring of slabs while this one
  // unfilters, so the wall time is about the larger of the two, not their
  // sum. Errors come out exactly as in the sequential loop: a slab's
  // inflate error before its unfilter error, Finish() after the last slab.
  std::unique_ptr<uint8_t[]> ring(new uint8_t[kRingSlabs * slab_bytes]);
  std::mutex mu;
  std::condition_variable cv;
  uint32_t filled = 0, consumed = 0;
  uint32_t failed_at = slab_count + 1;  // the slab whose inflate failed (slab_count: Finish)
  bool cancel = false;
  absl::Status inflate_status;
  auto produce = [&] {
    for (uint32_t k = 0; k < slab_count; ++k) {
      {
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return cancel || k - consumed < kRingSlabs; });
        if (cancel) return;
      }
      absl::Status s = inflater.Fill(ring.get() + (k % kRingSlabs) * slab_bytes, slab_fill_bytes(k));
      {
        std::lock_guard lock(mu);
        if (s.ok()) {
          filled = k + 1;
        } else {
          inflate_status = std::move(s);
          failed_at = k;
        }
      }
      cv.notify_all();
      if (failed_at == k) return;
    }
    absl::Status s = inflater.Finish();
    {
      std::lock_guard lock(mu);
      inflate_status = std::move(s);
      failed_at = slab_count;
    }
    cv.notify_all();
  };
  std::thread producer;
  try {
    producer = std::thread([&] {
      NameThisThread("rgfx-inflate");
      produce();
    });
  } catch (const std::system_error&) {
    return sequential();  // no thread to be had (limits): nothing started yet
  }
  absl::Status result;
  for (uint32_t k = 0; k < slab_count; ++k) {
    {
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return filled > k || failed_at <= k; });
      if (filled <= k) {
        result = inflate_status;
        break;
      }
    }
    result = unfilter_slab(ring.get() + (k % kRingSlabs) * slab_bytes, k);
    {
      std::lock_guard lock(mu);
      if (!result.ok()) cancel = true;
      consumed = k + 1;
    }
    cv.notify_all();
    if (!result.ok()) break;
  }
  producer.join();
  if (!result.ok()) return result;
  return inflate_status;  // Finish()'s verdict
}

absl::Status CheckIdatStreamEnd(const std::string& image_name, const PngChunks& chunks) {
  IdatInflater inflater(image_name, chunks);
  if (absl::Status s = inflater.CheckHeader(); !s.ok()) return s;
  return inflater.Skip();
}

}  // namespace rgfx::service
