// The runs coder's blocks inflate (with zlib, the reference) to exactly the
// bytes given, for the shapes of data that reach each of its code paths.
#include "service/deflate_runs.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <string>
#include <vector>

namespace rgfx::service {
namespace {

using Bytes = std::vector<uint8_t>;

// Inflates a raw deflate stream (no zlib header); `ended` says whether it
// reached its final block.
Bytes Inflate(const Bytes& deflated, bool* ended) {
  z_stream s{};
  EXPECT_EQ(inflateInit2(&s, -15), Z_OK);
  Bytes out(1 << 16);
  size_t used = 0;
  s.next_in = const_cast<Bytef*>(deflated.data());
  s.avail_in = static_cast<uInt>(deflated.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    if (out.size() - used < 4096) out.resize(out.size() * 2);
    s.next_out = out.data() + used;
    s.avail_out = static_cast<uInt>(out.size() - used);
    rc = inflate(&s, Z_NO_FLUSH);
    used = out.size() - s.avail_out;
    if (rc == Z_BUF_ERROR && s.avail_in == 0) break;  // all input read, no final block
  }
  *ended = rc == Z_STREAM_END;
  EXPECT_TRUE(rc == Z_STREAM_END || rc == Z_BUF_ERROR) << "zlib: " << (s.msg ? s.msg : "?");
  EXPECT_EQ(s.avail_in, 0u) << "bytes left after the stream";
  inflateEnd(&s);
  out.resize(used);
  return out;
}

Bytes OneBlock(const Bytes& data) {
  Bytes out;
  RunsDeflater coder(out);
  coder.Block(data, true);
  coder.Finish();
  return out;
}

void ExpectRoundTrip(const Bytes& data, const char* what) {
  bool ended = false;
  EXPECT_EQ(Inflate(OneBlock(data), &ended), data) << what;
  EXPECT_TRUE(ended) << what;
}

TEST(RunsDeflater, EmptyAndTinyBlocks) {
  ExpectRoundTrip({}, "empty");
  ExpectRoundTrip({7}, "one byte");
  ExpectRoundTrip({0, 0}, "two equal bytes");
  ExpectRoundTrip({9, 9, 9, 9}, "a shortest run after its first byte");
  ExpectRoundTrip({1, 2, 3}, "three literals");
}

TEST(RunsDeflater, RandomBytesOfOddLength) {
  std::mt19937 rng(11);
  Bytes data(100003);
  for (uint8_t& b : data) b = static_cast<uint8_t>(rng());
  ExpectRoundTrip(data, "uniform random");
}

TEST(RunsDeflater, RunsOfEveryLengthAroundTheLimits) {
  // Runs of 1..600 (past 258, the longest match, and 3, the shortest),
  // placed at every alignment the 16-byte scan can meet.
  std::mt19937 rng(5);
  Bytes data;
  for (int length = 1; length <= 600; ++length) {
    const uint8_t value = static_cast<uint8_t>(rng() % 4);  // neighbours often equal
    data.insert(data.end(), static_cast<size_t>(length), value);
    for (uint32_t k = rng() % 5; k > 0; --k) data.push_back(static_cast<uint8_t>(rng()));
  }
  ExpectRoundTrip(data, "mixed runs");
  ExpectRoundTrip(Bytes(1 << 20, 0), "one megabyte of zeros");
  Bytes tail(40, 3);
  tail.back() = 4;
  ExpectRoundTrip(tail, "a run ending one byte before the block's end");
}

TEST(RunsDeflater, FilteredPhotoLikeResidualsAndLongCodes) {
  // Small residuals, mostly zero: what filtered photographs give.
  std::mt19937 rng(3);
  std::geometric_distribution<int> residual(0.45);
  Bytes residuals(300007);
  for (uint8_t& b : residuals) {
    const int r = residual(rng);
    b = static_cast<uint8_t>(rng() % 2 ? r : -r);
  }
  ExpectRoundTrip(residuals, "residuals");
  // Fibonacci frequencies make an unlimited Huffman code 24 bits deep:
  // the coder must bring it within deflate's 15.
  Bytes skewed;
  uint64_t a = 1, b = 1;
  for (int symbol = 0; symbol < 25; ++symbol) {
    for (uint64_t k = 0; k < a; ++k) {
      skewed.push_back(static_cast<uint8_t>(symbol * 7 + 1));
      skewed.push_back(static_cast<uint8_t>(200 + symbol % 3));  // no runs
    }
    const uint64_t next = a + b;
    a = b;
    b = next;
  }
  std::shuffle(skewed.begin(), skewed.end(), rng);
  ExpectRoundTrip(skewed, "Fibonacci frequencies");
}

TEST(RunsDeflater, BlocksAndFlushedStreamsConcatenate) {
  // Two blocks, a full flush, then another coder's final block: one
  // stream, as the PNG encoder's pieces make it.
  std::mt19937 rng(8);
  Bytes parts[3];
  for (Bytes& part : parts) {
    part.resize(5000 + rng() % 3000);
    for (uint8_t& b : part) b = static_cast<uint8_t>(rng() % 3 == 0 ? rng() : 0);
  }
  Bytes stream;
  {
    RunsDeflater first(stream);
    first.Block(parts[0], false);
    first.Block(parts[1], false);
    first.Finish();
  }
  bool ended = true;
  Bytes expected = parts[0];
  expected.insert(expected.end(), parts[1].begin(), parts[1].end());
  EXPECT_EQ(Inflate(stream, &ended), expected);
  EXPECT_FALSE(ended) << "a flushed stream must not end";
  {
    RunsDeflater second(stream);  // appends after the flush
    second.Block(parts[2], true);
    second.Finish();
  }
  expected.insert(expected.end(), parts[2].begin(), parts[2].end());
  EXPECT_EQ(Inflate(stream, &ended), expected);
  EXPECT_TRUE(ended);
}

TEST(RunsDeflater, RunsMakeZerosSmallAndNoiseCostsAboutItsEntropy) {
  // Guards against a coder that is correct but codes badly: a megabyte of
  // zeros is ~4,000 runs of 258 (a few bits each), and uniform noise cannot
  // shrink, so it may only grow by the block's header and a little.
  EXPECT_LT(OneBlock(Bytes(1 << 20, 0)).size(), 2000u);
  std::mt19937 rng(2);
  Bytes noise(1 << 16);
  for (uint8_t& b : noise) b = static_cast<uint8_t>(rng());
  EXPECT_LT(OneBlock(noise).size(), noise.size() + noise.size() / 64);
}

}  // namespace
}  // namespace rgfx::service
