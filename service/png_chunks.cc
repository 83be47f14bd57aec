#include "service/png_chunks.h"

#include <isa-l/crc.h>

#include <cstring>

#include "absl/strings/str_cat.h"

namespace rgfx::service {
namespace {

constexpr uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
constexpr uint32_t kMaxChunkLength = 0x7fffffffu;  // PNG §5.3: at most 2^31 - 1

uint32_t ReadU32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

bool IsLetter(uint8_t c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

// Valid (colour type, bit depth) pairs, PNG §11.2.2 table 11.1.
bool ValidDepth(int color_type, int depth) {
  switch (color_type) {
    case 0: return depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16;
    case 3: return depth == 1 || depth == 2 || depth == 4 || depth == 8;
    case 2: case 4: case 6: return depth == 8 || depth == 16;
    default: return false;
  }
}

}  // namespace

int PngChannels(int color_type) {
  switch (color_type) {
    case 2: return 3;
    case 4: return 2;
    case 6: return 4;
    default: return 1;
  }
}

uint32_t PngCrc32(uint32_t crc, const uint8_t* data, size_t size) {
  return crc32_gzip_refl(crc, data, size);
}

absl::StatusOr<PngChunks> ParsePngChunks(const std::string& image_name,
                                         std::span<const std::byte> png) {
  auto invalid = [&](auto&&... parts) {
    return absl::InvalidArgumentError(absl::StrCat("image '", image_name, "': invalid PNG: ",
                                                   parts...));
  };
  const auto* data = reinterpret_cast<const uint8_t*>(png.data());
  const size_t size = png.size();
  if (size < 8 || std::memcmp(data, kSignature, 8) != 0) {
    return invalid("not a PNG file (bad signature)");
  }
  PngChunks out;
  bool seen_ihdr = false, seen_iend = false;
  bool idat_ended = false;  // a chunk other than IDAT came after IDATs
  size_t pos = 8;
  while (!seen_iend) {
    if (size - pos < 12) {
      return invalid("truncated: the data ends before the IEND chunk (at byte ", pos, ")");
    }
    const uint8_t* head = data + pos;
    const uint32_t length = ReadU32(head);
    const uint8_t* type = head + 4;
    const std::string name(reinterpret_cast<const char*>(type), 4);
    if (!IsLetter(type[0]) || !IsLetter(type[1]) || !IsLetter(type[2]) || !IsLetter(type[3])) {
      return invalid("bad chunk type at byte ", pos);
    }
    if (length > kMaxChunkLength) return invalid("chunk ", name, " has length ", length);
    if (size - pos - 12 < length) {
      return invalid("truncated: the data ends inside chunk ", name);
    }
    const uint8_t* body = head + 8;
    const bool critical = (type[0] & 0x20) == 0;
    const uint32_t crc = ReadU32(body + length);
    pos += 12 + size_t{length};
    if (PngCrc32(0, type, size_t{length} + 4) != crc) {
      if (critical) return invalid("CRC error in chunk ", name);
      continue;  // ancillary: skipped, as libpng does
    }
    if (!seen_ihdr && name != "IHDR") return invalid("the first chunk is ", name, ", not IHDR");
    if (name != "IDAT" && !out.idat.empty()) idat_ended = true;

    if (name == "IHDR") {
      if (seen_ihdr) return invalid("more than one IHDR chunk");
      if (length != 13) return invalid("IHDR has length ", length, ", not 13");
      seen_ihdr = true;
      out.width = ReadU32(body);
      out.height = ReadU32(body + 4);
      out.bit_depth = body[8];
      out.color_type = body[9];
      if (out.width == 0 || out.height == 0 || out.width > kMaxChunkLength ||
          out.height > kMaxChunkLength) {
        return invalid("image size ", out.width, "x", out.height, " in IHDR");
      }
      if (!ValidDepth(out.color_type, out.bit_depth)) {
        return invalid("bit depth ", out.bit_depth, " with colour type ", out.color_type);
      }
      if (body[10] != 0 || body[11] != 0 || body[12] > 1) {
        return invalid("unknown compression, filter or interlace method in IHDR");
      }
      out.interlaced = body[12] == 1;
    } else if (name == "PLTE") {
      if (!out.palette.empty()) return invalid("more than one PLTE chunk");
      if (!out.idat.empty()) return invalid("PLTE after IDAT");
      if (!out.trns.empty()) return invalid("PLTE after tRNS");
      if (out.color_type == 0 || out.color_type == 4) {
        return invalid("PLTE chunk in a greyscale image");
      }
      const uint32_t entries = length / 3;
      if (length % 3 != 0 || entries == 0 || entries > 256 ||
          (out.color_type == 3 && entries > (1u << out.bit_depth))) {
        return invalid("PLTE of ", length, " bytes for a ", out.bit_depth, "-bit image");
      }
      out.palette = {body, length};
    } else if (name == "tRNS") {
      if (!out.idat.empty()) return invalid("tRNS after IDAT");
      if (!out.trns.empty()) return invalid("more than one tRNS chunk");
      bool ok = false;
      switch (out.color_type) {
        case 0: ok = length == 2; break;
        case 2: ok = length == 6; break;
        case 3:
          if (out.palette.empty()) return invalid("tRNS before PLTE");
          ok = length >= 1 && length <= out.palette.size() / 3;
          break;
        default: return invalid("tRNS chunk in an image with an alpha channel");
      }
      if (!ok) return invalid("tRNS of ", length, " bytes for colour type ", out.color_type);
      out.trns = {body, length};
    } else if (name == "IDAT") {
      if (idat_ended) return invalid("IDAT chunks are not consecutive");
      if (out.color_type == 3 && out.palette.empty()) {
        return invalid("missing PLTE before IDAT in a palette image");
      }
      out.idat.emplace_back(body, length);
      out.idat_bytes += length;
    } else if (name == "IEND") {
      if (length != 0) return invalid("IEND has ", length, " bytes of data");
      seen_iend = true;
    } else if (critical) {
      return invalid("unknown critical chunk ", name);
    }
  }
  if (out.idat.empty()) return invalid("no IDAT chunk");
  if (pos != size) return invalid(size - pos, " bytes of data after IEND");
  return out;
}

}  // namespace rgfx::service
