#include "service/png_filters.h"

#include <cstdlib>
#include <cstring>
#include <initializer_list>

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#define RGFX_PNG_SSE2 1
#endif

namespace rgfx::service {
namespace {

// The Paeth predictor exactly as PNG §9.4 writes it (ties: a, then b).
inline uint8_t PaethPredictor(int a, int b, int c) {
  const int pa = std::abs(b - c);
  const int pb = std::abs(a - c);
  const int pc = std::abs(a + b - 2 * c);
  if (pa <= pb && pa <= pc) return static_cast<uint8_t>(a);
  if (pb <= pc) return static_cast<uint8_t>(b);
  return static_cast<uint8_t>(c);
}

// Scalar reconstruction for any bpp; the reference the SIMD code must match.
bool UnfilterScalar(uint8_t filter, size_t bpp, const uint8_t* in, const uint8_t* prev,
                    uint8_t* out, size_t n) {
  switch (filter) {
    case kPngFilterNone:
      if (out != in) std::memcpy(out, in, n);
      return true;
    case kPngFilterSub:
      for (size_t i = 0; i < n; ++i) out[i] = in[i] + (i >= bpp ? out[i - bpp] : 0);
      return true;
    case kPngFilterUp:
      for (size_t i = 0; i < n; ++i) out[i] = in[i] + prev[i];
      return true;
    case kPngFilterAverage:
      for (size_t i = 0; i < n; ++i) {
        const int a = i >= bpp ? out[i - bpp] : 0;
        out[i] = static_cast<uint8_t>(in[i] + ((a + prev[i]) >> 1));
      }
      return true;
    case kPngFilterPaeth:
      for (size_t i = 0; i < n; ++i) {
        const int a = i >= bpp ? out[i - bpp] : 0;
        const int c = i >= bpp ? prev[i - bpp] : 0;
        out[i] = static_cast<uint8_t>(in[i] + PaethPredictor(a, prev[i], c));
      }
      return true;
    default:
      return false;
  }
}

#ifdef RGFX_PNG_SSE2

// One pixel of BPP bytes in the low lanes of a register. memcpy of a
// constant size compiles to a couple of moves and never reads past the row,
// but for 3 and 6 bytes it goes through the stack (a store-forwarding stall
// in the loop's dependency chain), so all pixels but the last use the wide
// forms below.
template <int BPP>
inline __m128i LoadPixel(const uint8_t* p) {
  uint64_t v = 0;
  std::memcpy(&v, p, BPP);
  return _mm_cvtsi64_si128(static_cast<long long>(v));
}

template <int BPP>
inline void StorePixel(uint8_t* p, __m128i x) {
  const uint64_t v = static_cast<uint64_t>(_mm_cvtsi128_si64(x));
  std::memcpy(p, &v, BPP);
}

// A pixel padded to 4 or 8 bytes: one plain load or store. The lanes past
// the pixel hold the next pixel's bytes, and what is computed in them is
// garbage that only ever flows into the same lanes; the store writes it
// into the next pixel's place in `out`, which the next step overwrites (so
// `out` must not overlap `in`), and the last pixel is stored exactly.
template <int BPP>
constexpr size_t kWide = BPP <= 4 ? 4 : 8;

template <int BPP>
inline __m128i LoadWide(const uint8_t* p) {
  if constexpr (BPP <= 4) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return _mm_cvtsi32_si128(static_cast<int>(v));
  } else {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return _mm_cvtsi64_si128(static_cast<long long>(v));
  }
}

template <int BPP>
inline void StoreWide(uint8_t* p, __m128i x) {
  if constexpr (BPP <= 4) {
    const uint32_t v = static_cast<uint32_t>(_mm_cvtsi128_si32(x));
    std::memcpy(p, &v, 4);
  } else {
    const uint64_t v = static_cast<uint64_t>(_mm_cvtsi128_si64(x));
    std::memcpy(p, &v, 8);
  }
}

inline __m128i Abs16(__m128i x) { return _mm_max_epi16(x, _mm_sub_epi16(_mm_setzero_si128(), x)); }

// floor((a + b) / 2) per byte: pavgb rounds up, so take the odd bit back.
inline __m128i FloorAverage8(__m128i a, __m128i b) {
  return _mm_sub_epi8(_mm_avg_epu8(a, b), _mm_and_si128(_mm_xor_si128(a, b), _mm_set1_epi8(1)));
}

// The Paeth predictor on 16-bit lanes holding byte values.
inline __m128i Paeth16(__m128i a, __m128i b, __m128i c) {
  const __m128i b_c = _mm_sub_epi16(b, c);
  const __m128i a_c = _mm_sub_epi16(a, c);
  const __m128i pa = Abs16(b_c);
  const __m128i pb = Abs16(a_c);
  const __m128i pc = Abs16(_mm_add_epi16(b_c, a_c));
  // a when pa <= min(pb, pc), else b when pb <= pc, else c (§9.4's ties).
  const __m128i smallest_bc = _mm_min_epi16(pb, pc);
  const __m128i not_a = _mm_cmpgt_epi16(pa, smallest_bc);
  const __m128i take_b = _mm_cmpeq_epi16(smallest_bc, pb);
  const __m128i b_or_c = _mm_or_si128(_mm_and_si128(take_b, b), _mm_andnot_si128(take_b, c));
  return _mm_or_si128(_mm_andnot_si128(not_a, a), _mm_and_si128(not_a, b_or_c));
}

// Each loop runs wide while a padded access stays inside the row, then
// exactly for the last pixel (for 4 and 8 bytes the wide form is exact).
template <int BPP>
void UnfilterSub(const uint8_t* in, uint8_t* out, size_t n) {
  __m128i a = _mm_setzero_si128();
  size_t i = 0;
  for (; i + kWide<BPP> <= n; i += BPP) {
    a = _mm_add_epi8(LoadWide<BPP>(in + i), a);
    StoreWide<BPP>(out + i, a);
  }
  for (; i < n; i += BPP) {
    a = _mm_add_epi8(LoadPixel<BPP>(in + i), a);
    StorePixel<BPP>(out + i, a);
  }
}

template <int BPP>
void UnfilterAverage(const uint8_t* in, const uint8_t* prev, uint8_t* out, size_t n) {
  __m128i a = _mm_setzero_si128();
  size_t i = 0;
  for (; i + kWide<BPP> <= n; i += BPP) {
    a = _mm_add_epi8(LoadWide<BPP>(in + i), FloorAverage8(a, LoadWide<BPP>(prev + i)));
    StoreWide<BPP>(out + i, a);
  }
  for (; i < n; i += BPP) {
    a = _mm_add_epi8(LoadPixel<BPP>(in + i), FloorAverage8(a, LoadPixel<BPP>(prev + i)));
    StorePixel<BPP>(out + i, a);
  }
}

// A pixel's bytes widened to 16-bit lanes.
template <int BPP, bool kWideAccess>
inline __m128i LoadPixel16(const uint8_t* p) {
  return _mm_unpacklo_epi8(kWideAccess ? LoadWide<BPP>(p) : LoadPixel<BPP>(p),
                           _mm_setzero_si128());
}

// One Paeth pixel on 16-bit lanes: a = in + Paeth(a, b, c), stored to out.
// The chain from one pixel to the next (through `a`) sets the speed, so it
// is kept short: the sum is formed in 16 bits and masked rather than
// packed, added and unpacked again.
template <int BPP, bool kWideAccess>
inline void PaethPixel(const uint8_t* in, __m128i b, __m128i c, uint8_t* out, __m128i& a) {
  const __m128i x_in = LoadPixel16<BPP, kWideAccess>(in);
  a = _mm_and_si128(_mm_add_epi16(x_in, Paeth16(a, b, c)), _mm_set1_epi16(0xff));
  const __m128i x = _mm_packus_epi16(a, a);
  if constexpr (kWideAccess) {
    StoreWide<BPP>(out, x);
  } else {
    StorePixel<BPP>(out, x);
  }
}

// One pixel of a Paeth row: its "above" from `prev`, "above left" in `c`.
template <int BPP, bool kWideAccess>
inline void PaethStep(const uint8_t* in, const uint8_t* prev, uint8_t* out, __m128i& a,
                      __m128i& c) {
  const __m128i b = LoadPixel16<BPP, kWideAccess>(prev);
  PaethPixel<BPP, kWideAccess>(in, b, c, out, a);
  c = b;
}

template <int BPP>
void UnfilterPaeth(const uint8_t* in, const uint8_t* prev, uint8_t* out, size_t n) {
  __m128i a = _mm_setzero_si128(), c = _mm_setzero_si128();
  size_t i = 0;
  for (; i + kWide<BPP> <= n; i += BPP) PaethStep<BPP, true>(in + i, prev + i, out + i, a, c);
  for (; i < n; i += BPP) PaethStep<BPP, false>(in + i, prev + i, out + i, a, c);
}

// One pixel of two Paeth rows: row 0's step as PaethStep; row 1's "above"
// is row 0's new pixel and its "above left" row 0's previous one, both
// still in registers. Row 1's chain runs one step behind row 0's, so the
// two overlap in the core.
template <int BPP, bool kWideAccess>
inline void PaethPairStep(const uint8_t* in0, const uint8_t* in1, const uint8_t* prev,
                          uint8_t* out0, uint8_t* out1, __m128i& a0, __m128i& c0, __m128i& a1) {
  const __m128i c1 = a0;  // row 0's previous pixel
  PaethStep<BPP, kWideAccess>(in0, prev, out0, a0, c0);
  PaethPixel<BPP, kWideAccess>(in1, a0, c1, out1, a1);
}

template <int BPP>
void UnfilterPaethPair(const uint8_t* in0, const uint8_t* in1, const uint8_t* prev, uint8_t* out0,
                       uint8_t* out1, size_t n) {
  __m128i a0 = _mm_setzero_si128(), c0 = _mm_setzero_si128(), a1 = _mm_setzero_si128();
  size_t i = 0;
  for (; i + kWide<BPP> <= n; i += BPP) {
    PaethPairStep<BPP, true>(in0 + i, in1 + i, prev + i, out0 + i, out1 + i, a0, c0, a1);
  }
  for (; i < n; i += BPP) {
    PaethPairStep<BPP, false>(in0 + i, in1 + i, prev + i, out0 + i, out1 + i, a0, c0, a1);
  }
}

void UnfilterUp(const uint8_t* in, const uint8_t* prev, uint8_t* out, size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(prev + i));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm_add_epi8(x, b));
  }
  for (; i < n; ++i) out[i] = in[i] + prev[i];
}

template <int BPP>
bool UnfilterSimd(uint8_t filter, const uint8_t* in, const uint8_t* prev, uint8_t* out,
                  size_t n) {
  switch (filter) {
    case kPngFilterSub: UnfilterSub<BPP>(in, out, n); return true;
    case kPngFilterAverage: UnfilterAverage<BPP>(in, prev, out, n); return true;
    case kPngFilterPaeth: UnfilterPaeth<BPP>(in, prev, out, n); return true;
    default: return UnfilterScalar(filter, BPP, in, prev, out, n);
  }
}

#endif  // RGFX_PNG_SSE2

}  // namespace

bool UnfilterRow(uint8_t filter, int bpp, const uint8_t* in, const uint8_t* prev, uint8_t* out,
                 size_t row_bytes) {
#ifdef RGFX_PNG_SSE2
  if (filter == kPngFilterUp) {
    UnfilterUp(in, prev, out, row_bytes);
    return true;
  }
  // The per-pixel loops step whole pixels, so rows must be whole pixels
  // (always true at 8 and 16 bits, the only depths with bpp > 1).
  if (row_bytes % static_cast<size_t>(bpp) == 0) {
    switch (bpp) {
      case 2: return UnfilterSimd<2>(filter, in, prev, out, row_bytes);
      case 3: return UnfilterSimd<3>(filter, in, prev, out, row_bytes);
      case 4: return UnfilterSimd<4>(filter, in, prev, out, row_bytes);
      case 6: return UnfilterSimd<6>(filter, in, prev, out, row_bytes);
      case 8: return UnfilterSimd<8>(filter, in, prev, out, row_bytes);
      default: break;
    }
  }
#endif
  return UnfilterScalar(filter, static_cast<size_t>(bpp), in, prev, out, row_bytes);
}

bool UnfilterPaethRowPair(int bpp, const uint8_t* in0, const uint8_t* in1, const uint8_t* prev,
                          uint8_t* out0, uint8_t* out1, size_t row_bytes) {
#ifdef RGFX_PNG_SSE2
  if (row_bytes % static_cast<size_t>(bpp) != 0) return false;
  switch (bpp) {
    case 2: UnfilterPaethPair<2>(in0, in1, prev, out0, out1, row_bytes); return true;
    case 3: UnfilterPaethPair<3>(in0, in1, prev, out0, out1, row_bytes); return true;
    case 4: UnfilterPaethPair<4>(in0, in1, prev, out0, out1, row_bytes); return true;
    case 6: UnfilterPaethPair<6>(in0, in1, prev, out0, out1, row_bytes); return true;
    case 8: UnfilterPaethPair<8>(in0, in1, prev, out0, out1, row_bytes); return true;
    default: return false;
  }
#else
  (void)bpp, (void)in0, (void)in1, (void)prev, (void)out0, (void)out1, (void)row_bytes;
  return false;
#endif
}

void FilterRow(uint8_t filter, int bpp_int, const uint8_t* row, const uint8_t* prev, uint8_t* out,
               size_t n) {
  const size_t bpp = static_cast<size_t>(bpp_int);
  size_t i = 0;
  // The first pixel has no left neighbour (a = c = 0).
  const size_t head = bpp < n ? bpp : n;
  switch (filter) {
    case kPngFilterSub:
      for (; i < head; ++i) out[i] = row[i];
      break;
    case kPngFilterAverage:
      for (; i < head; ++i) out[i] = static_cast<uint8_t>(row[i] - (prev[i] >> 1));
      break;
    case kPngFilterPaeth:
      for (; i < head; ++i) out[i] = static_cast<uint8_t>(row[i] - prev[i]);
      break;
    default:
      break;
  }
#ifdef RGFX_PNG_SSE2
  const __m128i zero = _mm_setzero_si128();
  auto load = [](const uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); };
  for (; i + 16 <= n; i += 16) {
    const __m128i x = load(row + i);
    __m128i predicted;
    switch (filter) {
      case kPngFilterSub: predicted = load(row + i - bpp); break;
      case kPngFilterUp: predicted = load(prev + i); break;
      case kPngFilterAverage: predicted = FloorAverage8(load(row + i - bpp), load(prev + i)); break;
      case kPngFilterPaeth: {
        const __m128i a = load(row + i - bpp), b = load(prev + i), c = load(prev + i - bpp);
        const __m128i lo = Paeth16(_mm_unpacklo_epi8(a, zero), _mm_unpacklo_epi8(b, zero),
                                   _mm_unpacklo_epi8(c, zero));
        const __m128i hi = Paeth16(_mm_unpackhi_epi8(a, zero), _mm_unpackhi_epi8(b, zero),
                                   _mm_unpackhi_epi8(c, zero));
        predicted = _mm_packus_epi16(lo, hi);
        break;
      }
      default: predicted = zero; break;
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm_sub_epi8(x, predicted));
  }
#endif
  for (; i < n; ++i) {
    const int a = i >= bpp ? row[i - bpp] : 0;
    const int c = i >= bpp ? prev[i - bpp] : 0;
    int predicted = 0;
    switch (filter) {
      case kPngFilterSub: predicted = a; break;
      case kPngFilterUp: predicted = prev[i]; break;
      case kPngFilterAverage: predicted = (a + prev[i]) >> 1; break;
      case kPngFilterPaeth: predicted = PaethPredictor(a, prev[i], c); break;
      default: break;
    }
    out[i] = static_cast<uint8_t>(row[i] - predicted);
  }
}

uint8_t ChooseRowFilter(int bpp, const uint8_t* row, const uint8_t* prev, uint8_t* scratch,
                        size_t n) {
  // Filters the row four ways and keeps the cheapest: the encoder judges
  // only every adaptive_row_step-th row, so a fused one-pass version would
  // not pay for a second implementation of the predictors.
  uint8_t best = kPngFilterSub;
  uint64_t best_cost = ~uint64_t{0};
  for (uint8_t f : {kPngFilterSub, kPngFilterUp, kPngFilterAverage, kPngFilterPaeth}) {
    FilterRow(f, bpp, row, prev, scratch, n);
    const uint64_t cost = FilteredRowCost(scratch, n);
    if (cost < best_cost) {
      best_cost = cost;
      best = f;
    }
  }
  return best;
}

uint64_t FilteredRowCost(const uint8_t* filtered, size_t n) {
  uint64_t sum = 0;
  size_t i = 0;
#ifdef RGFX_PNG_SSE2
  const __m128i zero = _mm_setzero_si128();
  __m128i acc = zero;
  for (; i + 16 <= n; i += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(filtered + i));
    // |x as int8| = min(x, -x) as unsigned bytes (0x80 -> 128 either way).
    const __m128i magnitude = _mm_min_epu8(x, _mm_sub_epi8(zero, x));
    acc = _mm_add_epi64(acc, _mm_sad_epu8(magnitude, zero));
  }
  sum = static_cast<uint64_t>(_mm_cvtsi128_si64(acc)) +
        static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(acc, acc)));
#endif
  for (; i < n; ++i) sum += static_cast<uint64_t>(std::abs(static_cast<int8_t>(filtered[i])));
  return sum;
}

}  // namespace rgfx::service
