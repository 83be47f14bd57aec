#include "service/deflate_runs.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <vector>

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#define RGFX_RUNS_SSE2 1
#endif

namespace rgfx::service {
namespace {

// RFC 1951 §3.2.5: the literal/length alphabet (0-255 bytes, 256 end of
// block, 257-285 lengths) and the order the code-length code's lengths
// are sent in (§3.2.7).
constexpr int kEndOfBlock = 256;
constexpr int kLitLenSymbols = 286;
constexpr int kCodeLengthSymbols = 19;
constexpr int kMaxCodeBits = 15;
// Literal/length codes are kept to 13 bits (deflate allows 15) so that a
// token, with a length's 5 extra bits and the distance bit, is at most 19
// bits and three always fit the bit buffer at once. Symbols rarer than
// ~1/8192 of a block are all that a shorter limit touches: the size cost is
// far below 0.1%.
constexpr int kMaxLitLenBits = 13;
constexpr int kMaxCodeLengthBits = 7;
constexpr int kMinRun = 3;
constexpr int kMaxRun = 258;
constexpr uint8_t kCodeLengthOrder[kCodeLengthSymbols] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                                          11, 4,  12, 3, 13, 2, 14, 1, 15};

// Length 3..258 -> its symbol (257..285), extra bit count and extra value.
struct LengthCode {
  uint16_t symbol;
  uint8_t extra_bits;
  uint8_t extra;
};

constexpr std::array<LengthCode, kMaxRun + 1> MakeLengthCodes() {
  constexpr uint16_t kBase[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                  31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
  constexpr uint8_t kExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                  2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
  std::array<LengthCode, kMaxRun + 1> table{};
  for (int code = 0; code < 29; ++code) {
    for (int extra = 0; extra < (1 << kExtra[code]); ++extra) {
      const int length = kBase[code] + extra;
      // Symbol 284 (227 + 5 bits) could say 258, but 285 is 258's own code.
      if (length > kMaxRun || (length == kMaxRun && code != 28)) continue;
      table[length] = {static_cast<uint16_t>(257 + code), kExtra[code], static_cast<uint8_t>(extra)};
    }
  }
  return table;
}
constexpr std::array<LengthCode, kMaxRun + 1> kLengthCodes = MakeLengthCodes();

// Bit i of the mask (i >= 1): data[i] == data[i - 1]. Bit 0 and the bits
// past the block are 0, and a zero word follows the last, so that 64 bits
// may be read from any position in the block.
void EqualToPreviousMask(const uint8_t* data, size_t n, std::vector<uint64_t>& mask) {
  mask.assign(n / 64 + 2, 0);
  size_t i = 1;
#ifdef RGFX_RUNS_SSE2
  for (; i + 16 <= n; i += 16) {
    const __m128i at = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
    const __m128i before = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i - 1));
    const uint64_t bits = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(at, before)));
    mask[i / 64] |= bits << (i % 64);
    if (i % 64 > 48) mask[i / 64 + 1] |= bits >> (64 - i % 64);
  }
#endif
  for (; i < n; ++i) {
    if (data[i] == data[i - 1]) mask[i / 64] |= uint64_t{1} << (i % 64);
  }
}

// The 64 bits of `mask` from bit `at` on.
inline uint64_t MaskBitsFrom(const std::vector<uint64_t>& mask, size_t at) {
  const size_t word = at / 64, shift = at % 64;
  // Without a branch on shift == 0 (a shift by 64 would be undefined).
  return (mask[word] >> shift) | ((mask[word + 1] << 1) << (63 - shift));
}

// A token: bits 0-8 a literal/length symbol, bits 9-13 a length's extra
// bits. Tokens are stored in order, so that coding them is one loop
// without data-dependent branches (runs and literals mixed at random would
// mispredict a branch or two per run otherwise).
constexpr int kExtraShift = 9;
constexpr uint16_t kSymbolMask = (1u << kExtraShift) - 1;
constexpr size_t kTokenValues = size_t{1} << (kExtraShift + 5);

// Appends tokens for the literals data[from, to) at `out`; returns the end.
// Writes up to 15 tokens past the end (the caller leaves room; later
// tokens overwrite them) and reads no byte at or past data[n].
uint16_t* LiteralTokens(const uint8_t* data, size_t n, size_t from, size_t to, uint16_t* out) {
  size_t k = from;
#ifdef RGFX_RUNS_SSE2
  const __m128i zero = _mm_setzero_si128();
  for (; k < to && k + 16 <= n; k += 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + k));
    uint16_t* at = out + (k - from);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(at), _mm_unpacklo_epi8(bytes, zero));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(at + 8), _mm_unpackhi_epi8(bytes, zero));
  }
#endif
  for (; k < to; ++k) out[k - from] = data[k];
  return out + (to - from);
}

// Splits the block into literals and runs as zlib's Z_RLE greedy parse
// does (at each position, if the next kMinRun bytes equal the byte before
// them, a run of as many as are equal, up to kMaxRun; otherwise one
// literal). That parse's runs are exactly the stretches of set bits of the
// equal-to-previous mask that are kMinRun or longer, cut into kMaxRun
// pieces (a remainder under kMinRun is literals): so each 64-bit word
// gives its stretches' starts with a few bit operations, and finding a run
// does not wait on the previous run's length. Returns the number of tokens
// written to `tokens` (room for n + 16 at least); `equal` is scratch.
size_t Tokenize(const uint8_t* data, size_t n, std::vector<uint64_t>& equal, uint16_t* tokens) {
  EqualToPreviousMask(data, n, equal);
  uint16_t* out = tokens;
  size_t literals_from = 0;
  uint64_t before = 0;  // the previous word
  for (size_t w = 0; w * 64 < n; ++w) {
    const uint64_t e = equal[w], next = equal[w + 1];
    // Bit k: positions k, k + 1 and k + 2 all equal their previous byte,
    // and position k - 1 does not (a stretch starts at k).
    const uint64_t three = e & (e >> 1 | next << 63) & (e >> 2 | next << 62);
    uint64_t starts = three & ~(e << 1 | before >> 63);
    before = e;
    for (; starts != 0; starts &= starts - 1) {
      const size_t p = w * 64 + static_cast<size_t>(__builtin_ctzll(starts));
      size_t stretch = 0;  // set bits from p on
      for (;;) {
        const uint64_t unset = ~MaskBitsFrom(equal, p + stretch);
        const size_t more = unset == 0 ? 64 : static_cast<size_t>(__builtin_ctzll(unset));
        stretch += more;
        if (more < 64) break;
      }
      out = LiteralTokens(data, n, literals_from, p, out);
      size_t at = p;
      for (; stretch >= kMinRun;) {
        const size_t length = std::min<size_t>(stretch, kMaxRun);
        const LengthCode& code = kLengthCodes[length];
        *out++ = static_cast<uint16_t>(code.symbol | code.extra << kExtraShift);
        at += length;
        stretch -= length;
      }
      literals_from = at;
    }
  }
  out = LiteralTokens(data, n, literals_from, n, out);
  return static_cast<size_t>(out - tokens);
}

// Symbol frequencies of the tokens, counted into four tables so that
// repeated symbols do not wait on each other's increments.
void CountSymbols(const uint16_t* tokens, size_t count, uint32_t* freq) {
  uint32_t counts[4][kSymbolMask + 1] = {};
  size_t i = 0;
  for (; i + 4 <= count; i += 4) {
    ++counts[0][tokens[i] & kSymbolMask];
    ++counts[1][tokens[i + 1] & kSymbolMask];
    ++counts[2][tokens[i + 2] & kSymbolMask];
    ++counts[3][tokens[i + 3] & kSymbolMask];
  }
  for (; i < count; ++i) ++counts[0][tokens[i] & kSymbolMask];
  for (int s = 0; s < kLitLenSymbols; ++s) {
    freq[s] += counts[0][s] + counts[1][s] + counts[2][s] + counts[3][s];
  }
}

// Code lengths of a Huffman code for `freq` no longer than `limit` bits.
// A code of one symbol gets a second (so every code is complete, which
// every inflater accepts). Lengths over the limit are rare (they need
// frequencies spread over ~2^15); then the frequencies are halved and the
// code made again, which costs a little size and stays correct.
void HuffmanLengths(const uint32_t* freq, int n, int limit, uint8_t* lengths) {
  std::fill(lengths, lengths + n, 0);
  std::vector<uint32_t> weight(freq, freq + n);
  std::vector<int> symbols;
  for (int s = 0; s < n; ++s) {
    if (weight[s] > 0) symbols.push_back(s);
  }
  if (symbols.empty()) return;
  if (symbols.size() == 1) {
    lengths[symbols[0]] = 1;
    lengths[symbols[0] == 0 ? 1 : 0] = 1;
    return;
  }
  const size_t leaves = symbols.size();
  std::vector<uint64_t> node_weight(2 * leaves - 1);
  std::vector<int> parent(2 * leaves - 1);
  std::vector<int> depth(2 * leaves - 1);
  for (;;) {
    std::sort(symbols.begin(), symbols.end(), [&](int a, int b) {
      return weight[a] != weight[b] ? weight[a] < weight[b] : a < b;
    });
    for (size_t k = 0; k < leaves; ++k) node_weight[k] = weight[symbols[k]];
    // Two queues: the sorted leaves, and the internal nodes, which are made
    // in order of weight; the two lightest fronts are joined each step.
    size_t next_leaf = 0, next_internal = leaves;
    for (size_t made = leaves; made < 2 * leaves - 1; ++made) {
      size_t pick[2];
      for (size_t& p : pick) {
        const bool leaf = next_leaf < leaves &&
                          (next_internal >= made || node_weight[next_leaf] <= node_weight[next_internal]);
        p = leaf ? next_leaf++ : next_internal++;
      }
      node_weight[made] = node_weight[pick[0]] + node_weight[pick[1]];
      parent[pick[0]] = parent[pick[1]] = static_cast<int>(made);
    }
    // Parents are made after their children: walk from the root down.
    int longest = 0;
    depth[2 * leaves - 2] = 0;
    for (size_t k = 2 * leaves - 2; k-- > 0;) {
      depth[k] = depth[parent[k]] + 1;
      if (k < leaves) longest = std::max(longest, depth[k]);
    }
    if (longest <= limit) {
      for (size_t k = 0; k < leaves; ++k) lengths[symbols[k]] = static_cast<uint8_t>(depth[k]);
      return;
    }
    for (int s : symbols) weight[s] = (weight[s] + 1) / 2;
  }
}

// Canonical codes (RFC 1951 §3.2.2) for `lengths`, bit-reversed because
// deflate sends Huffman codes from their first bit into the low end.
void CanonicalCodes(const uint8_t* lengths, int n, uint16_t* codes) {
  int count[kMaxCodeBits + 1] = {};
  for (int s = 0; s < n; ++s) ++count[lengths[s]];
  count[0] = 0;
  int next[kMaxCodeBits + 2] = {};
  for (int bits = 1, code = 0; bits <= kMaxCodeBits; ++bits) {
    code = (code + count[bits - 1]) << 1;
    next[bits] = code;
  }
  for (int s = 0; s < n; ++s) {
    const int length = lengths[s];
    if (length == 0) continue;
    uint32_t code = static_cast<uint32_t>(next[length]++), reversed = 0;
    for (int b = 0; b < length; ++b) reversed |= ((code >> b) & 1u) << (length - 1 - b);
    codes[s] = static_cast<uint16_t>(reversed);
  }
}

// One symbol of the run-length-coded code lengths (§3.2.7): 0-15 a length,
// 16 the previous length 3-6 times, 17 zeros 3-10 times, 18 zeros 11-138.
struct CodeLengthToken {
  uint8_t symbol;
  uint8_t extra;
};

std::vector<CodeLengthToken> CodeLengthTokens(const uint8_t* lengths, int n) {
  std::vector<CodeLengthToken> tokens;
  for (int i = 0; i < n;) {
    const uint8_t value = lengths[i];
    int run = 1;
    while (i + run < n && lengths[i + run] == value) ++run;
    i += run;
    if (value == 0) {
      while (run >= 11) {
        const int take = std::min(run, 138);
        tokens.push_back({18, static_cast<uint8_t>(take - 11)});
        run -= take;
      }
      if (run >= 3) {
        tokens.push_back({17, static_cast<uint8_t>(run - 3)});
        run = 0;
      }
    } else {
      tokens.push_back({value, 0});
      --run;
      while (run >= 3) {
        const int take = std::min(run, 6);
        tokens.push_back({16, static_cast<uint8_t>(take - 3)});
        run -= take;
      }
    }
    for (; run > 0; --run) tokens.push_back({value, 0});
  }
  return tokens;
}

int CodeLengthExtraBits(int symbol) { return symbol == 16 ? 2 : symbol == 17 ? 3 : symbol == 18 ? 7 : 0; }

// Bits written from the low end of a 64-bit buffer. A local value (not a
// member) so that the compiler keeps it in registers: stores through a byte
// pointer may alias any member and would force reloads after each one.
struct BitSink {
  uint8_t* at;
  uint64_t bits;
  int count;

  void Put(uint64_t value, int n) {
    bits |= value << count;
    count += n;
  }
  // Stores the buffer's whole bytes (8 bytes are written; the caller
  // reserved the room); at most 7 bits stay.
  void Drain() {
    std::memcpy(at, &bits, 8);
    const int bytes = count >> 3;
    at += bytes;
    bits = bytes == 8 ? 0 : bits >> (8 * bytes);
    count &= 7;
  }
};

// A block's working memory, kept per thread from block to block and from
// image to image: fresh buffers for each (~600 KiB for a 256 KiB block)
// cost page faults and, under load, contention in the kernel's memory map.
// Nothing in it outlives one Block call.
struct BlockScratch {
  std::unique_ptr<uint16_t[]> tokens;
  size_t token_room = 0;
  std::vector<uint64_t> equal;
  std::unique_ptr<uint32_t[]> token_bits{new uint32_t[kTokenValues]};  // code of each token value
};

BlockScratch& ThreadScratch() {
  thread_local BlockScratch scratch;
  return scratch;
}

}  // namespace

RunsDeflater::RunsDeflater(std::vector<uint8_t>& out) : out_(out), used_(out.size()) {}

RunsDeflater::~RunsDeflater() = default;

void RunsDeflater::Reserve(size_t bytes) {
  // Drain writes 8 bytes at a time: keep that much slack past the end.
  if (out_.size() < used_ + bytes + 8) out_.resize(std::max(out_.size() * 2, used_ + bytes + 8));
}

void RunsDeflater::Block(std::span<const uint8_t> data, bool final) {
  const uint8_t* bytes = data.data();
  const size_t n = data.size();
  BlockScratch& scratch = ThreadScratch();
  if (scratch.token_room < n + 16) {
    scratch.token_room = n + 16;
    scratch.tokens.reset(new uint16_t[n + 16]);  // not zeroed: every token read is written first
  }
  const uint16_t* tokens = scratch.tokens.get();
  const size_t token_count = Tokenize(bytes, n, scratch.equal, scratch.tokens.get());
  uint32_t freq[kLitLenSymbols] = {};
  CountSymbols(tokens, token_count, freq);
  freq[kEndOfBlock] = 1;
  uint8_t lit_lengths[kLitLenSymbols];
  HuffmanLengths(freq, kLitLenSymbols, kMaxLitLenBits, lit_lengths);
  uint16_t lit_codes[kLitLenSymbols] = {};
  CanonicalCodes(lit_lengths, kLitLenSymbols, lit_codes);

  // Distances: only distance 1 (symbol 0) is used. Symbols 0 and 1 get one
  // bit each, a complete code: a one-symbol distance code is allowed by
  // the RFC but not accepted by every inflater.
  constexpr int kDistanceSymbols = 2;
  const uint8_t dist_lengths[kDistanceSymbols] = {1, 1};
  constexpr uint32_t kDistanceOneCode = 0;

  int lit_count = kLitLenSymbols;
  while (lit_count > 257 && lit_lengths[lit_count - 1] == 0) --lit_count;
  uint8_t all_lengths[kLitLenSymbols + kDistanceSymbols];
  std::memcpy(all_lengths, lit_lengths, static_cast<size_t>(lit_count));
  std::memcpy(all_lengths + lit_count, dist_lengths, kDistanceSymbols);
  const std::vector<CodeLengthToken> length_tokens =
      CodeLengthTokens(all_lengths, lit_count + kDistanceSymbols);
  uint32_t cl_freq[kCodeLengthSymbols] = {};
  for (const CodeLengthToken& t : length_tokens) ++cl_freq[t.symbol];
  uint8_t cl_lengths[kCodeLengthSymbols];
  HuffmanLengths(cl_freq, kCodeLengthSymbols, kMaxCodeLengthBits, cl_lengths);
  uint16_t cl_codes[kCodeLengthSymbols] = {};
  CanonicalCodes(cl_lengths, kCodeLengthSymbols, cl_codes);
  int cl_count = kCodeLengthSymbols;
  while (cl_count > 4 && cl_lengths[kCodeLengthOrder[cl_count - 1]] == 0) --cl_count;

  // Room: the header, then at most 15 bits per literal (a run's 21 bits
  // cover at least 3 bytes).
  Reserve(512 + n * 2);
  BitSink sink{out_.data() + used_, bits_, count_};
  auto Put = [&sink](uint64_t value, int count) { sink.Put(value, count); };
  auto Drain = [&sink] { sink.Drain(); };
  Put(final ? 1 : 0, 1);
  Put(2, 2);  // dynamic Huffman codes
  Put(static_cast<uint64_t>(lit_count - 257), 5);
  Put(kDistanceSymbols - 1, 5);
  Put(static_cast<uint64_t>(cl_count - 4), 4);
  Drain();
  for (int k = 0; k < cl_count; ++k) {
    Put(cl_lengths[kCodeLengthOrder[k]], 3);
    Drain();
  }
  for (const CodeLengthToken& t : length_tokens) {
    Put(cl_codes[t.symbol], cl_lengths[t.symbol]);
    Put(t.extra, CodeLengthExtraBits(t.symbol));
    Drain();
  }

  // Every token's bits, looked up whole: its symbol's code, then a
  // length's extra bits and the distance code (distance 1: one 0 bit). An
  // entry holds the bits (19 at most) and their count in the top byte.
  // Only the entries of literals and of valid (length, extra) pairs are
  // filled: those are the only tokens there are.
  uint32_t* token_bits = scratch.token_bits.get();
  for (int b = 0; b < 256; ++b) token_bits[b] = lit_codes[b] | uint32_t{lit_lengths[b]} << 24;
  for (int length = kMinRun; length <= kMaxRun; ++length) {
    const LengthCode& code = kLengthCodes[length];
    const int code_bits = lit_lengths[code.symbol];
    static_assert(kDistanceOneCode == 0, "the distance code is sent as a zero bit: none to add");
    token_bits[code.symbol | code.extra << kExtraShift] =
        (lit_codes[code.symbol] | uint32_t{code.extra} << code_bits) |
        static_cast<uint32_t>(code_bits + code.extra_bits + dist_lengths[0]) << 24;
  }
  auto bits_of = [&](uint16_t token) { return uint64_t{token_bits[token] & 0xffffffu}; };
  auto size_of = [&](uint16_t token) { return static_cast<int>(token_bits[token] >> 24); };
  // The bit buffer is one long chain of dependent shifts: tokens are
  // joined in threes off that chain first (57 bits at most, what the
  // buffer has free), then each group is one Put.
  static_assert(3 * (kMaxLitLenBits + 5 + 1) <= 57);
  size_t t = 0;
  for (; t + 3 <= token_count; t += 3) {
    const int a = size_of(tokens[t]), b = size_of(tokens[t + 1]);
    Put(bits_of(tokens[t]) | bits_of(tokens[t + 1]) << a | bits_of(tokens[t + 2]) << (a + b),
        a + b + size_of(tokens[t + 2]));
    Drain();
  }
  for (; t < token_count; ++t) {
    Put(bits_of(tokens[t]), size_of(tokens[t]));
    Drain();
  }
  Put(lit_codes[kEndOfBlock], lit_lengths[kEndOfBlock]);
  Drain();
  used_ = static_cast<size_t>(sink.at - out_.data());
  bits_ = sink.bits;
  count_ = sink.count;
  ended_ = final;
}

void RunsDeflater::Finish() {
  Reserve(16);
  BitSink sink{out_.data() + used_, bits_, count_};
  if (!ended_) {
    // An empty stored block: BFINAL 0, BTYPE 00, then LEN 0 and NLEN ~0 from
    // the next byte boundary.
    sink.Put(0, 3);
    sink.Drain();
    if (sink.count > 0) sink.Put(0, 8 - sink.count);
    sink.Drain();
    sink.Put(0xffff0000u, 32);
    sink.Drain();
  } else if (sink.count > 0) {
    sink.Put(0, 8 - sink.count);
    sink.Drain();
  }
  used_ = static_cast<size_t>(sink.at - out_.data());
  bits_ = 0;
  count_ = 0;
  out_.resize(used_);
}

}  // namespace rgfx::service
