// A deflate coder of our own for filtered PNG rows: literals and runs of one
// repeated byte (matches at distance 1 only, what zlib calls its Z_RLE
// strategy), with a dynamic Huffman code made for each block.
//
// Why: on filtered photographs nearly every match an LZ77 coder finds is a
// run of equal residuals (zeros, mostly), and its hash-table search for
// longer-distance matches costs most of its time while finding little. On
// the 1080p photographs of docs/CODEC.md this coder writes files ~20%
// smaller than zlib level 1 at several times ISA-L level 1's speed. Content
// that repeats at longer distances (text, tiles, screenshots) is where LZ77
// wins by far; the PNG encoder samples each piece for that
// (DeflateMethod::kSmallerOnSample) and keeps ISA-L there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace rgfx::service {

// Appends deflate blocks to a byte vector. A block never refers to bytes
// before its own start, so blocks (and streams ended by Finish) may be
// concatenated behind a zlib header wherever a full flush would be.
class RunsDeflater {
 public:
  // Writes into `out` from its current end.
  explicit RunsDeflater(std::vector<uint8_t>& out);
  ~RunsDeflater();
  RunsDeflater(const RunsDeflater&) = delete;
  RunsDeflater& operator=(const RunsDeflater&) = delete;

  // Codes `data` as one dynamic-Huffman block; `final` marks the stream's
  // last block (BFINAL).
  void Block(std::span<const uint8_t> data, bool final);

  // Ends the bits on a byte boundary and trims `out` to what was written.
  // After a final block the last byte is padded with zeros; otherwise an
  // empty stored block follows (what zlib's full flush writes), so the next
  // piece of the stream starts on a byte and a block boundary.
  void Finish();

  // Bytes written so far, counting a partly filled last byte.
  size_t Bytes() const { return used_ + static_cast<size_t>(count_ + 7) / 8; }

 private:
  // Room for `bytes` more past used_ (and the bit writer's 8-byte stores).
  void Reserve(size_t bytes);

  std::vector<uint8_t>& out_;
  size_t used_;        // bytes of out_ written
  uint64_t bits_ = 0;  // bits not yet written, the oldest in the low end
  int count_ = 0;
  bool ended_ = false;  // a final block was written
};

}  // namespace rgfx::service
