#include "tests/service/png_test_util.h"

#include <png.h>
#include <zlib.h>

#include <csetjmp>
#include <cstring>
#include <random>
#include <stdexcept>

#include "absl/strings/str_cat.h"

namespace rgfx::testing {
namespace {

int Channels(int color_type) {
  switch (color_type) {
    case PNG_COLOR_TYPE_GRAY: return 1;
    case PNG_COLOR_TYPE_GRAY_ALPHA: return 2;
    case PNG_COLOR_TYPE_RGB: return 3;
    case PNG_COLOR_TYPE_RGB_ALPHA: return 4;
    default: return 1;  // palette index
  }
}

void Append(png_structp png, png_bytep data, size_t n) {
  static_cast<std::string*>(png_get_io_ptr(png))->append(reinterpret_cast<char*>(data), n);
}
void NoFlush(png_structp) {}

// The libpng calls, alone in a frame with setjmp (no locals to clobber).
bool Write(png_structp png, png_infop info, const PngSpec& spec, std::vector<png_color>& colors,
           std::vector<png_byte>& palette_alpha, png_color_16& trns_color, png_bytepp rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_IHDR(png, info, spec.width, spec.height, spec.bit_depth, spec.color_type,
               spec.interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (spec.color_type == PNG_COLOR_TYPE_PALETTE) {
    png_set_PLTE(png, info, colors.data(), static_cast<int>(colors.size()));
    if (spec.trns) {
      png_set_tRNS(png, info, palette_alpha.data(), static_cast<int>(palette_alpha.size()),
                   nullptr);
    }
  } else if (spec.trns) {
    png_set_tRNS(png, info, nullptr, 0, &trns_color);
  }
  if (spec.filters != 0) png_set_filter(png, PNG_FILTER_TYPE_BASE, spec.filters);
  png_write_info(png, info);
  if (spec.bit_depth < 8) png_set_packing(png);
  png_write_image(png, rows);
  png_write_end(png, nullptr);
  return true;
}

}  // namespace

TestPng MakeTestPng(const PngSpec& spec) {
  std::mt19937 rng(spec.seed);
  const int channels = Channels(spec.color_type);
  const bool palette = spec.color_type == PNG_COLOR_TYPE_PALETTE;
  const uint32_t max_value = (1u << spec.bit_depth) - 1;
  const int palette_size = palette ? std::min(256, 1 << spec.bit_depth) : 0;

  std::vector<png_color> colors(palette_size);
  std::vector<png_byte> palette_alpha(palette_size);
  for (int i = 0; i < palette_size; ++i) {
    colors[i] = {static_cast<png_byte>(rng()), static_cast<png_byte>(rng()),
                 static_cast<png_byte>(rng())};
    palette_alpha[i] = static_cast<png_byte>(rng());
  }
  // Samples at the file's depth, one per channel per pixel.
  std::vector<uint16_t> samples(size_t{spec.width} * spec.height * channels);
  for (size_t i = 0; i < samples.size(); ++i) {
    uint16_t& s = samples[i];
    s = static_cast<uint16_t>(palette ? rng() % palette_size : rng() % (max_value + 1));
    if (spec.smooth) {  // a gradient with a little noise: filters then differ
      const size_t p = i / channels, x = p % spec.width, y = p / spec.width;
      const uint32_t range = palette ? palette_size : max_value + 1;
      s = static_cast<uint16_t>((x * 3 + y * 2 + (i % channels) * 40 + rng() % 3) % range);
    }
  }
  // A transparent colour that really occurs: the first pixel's.
  png_color_16 trns_color{};
  trns_color.gray = samples[0];
  if (channels >= 3) {
    trns_color.red = samples[0];
    trns_color.green = samples[1];
    trns_color.blue = samples[2];
  }

  TestPng out;
  out.sixteen_bit = spec.bit_depth == 16;
  const int out_bytes = out.sixteen_bit ? 2 : 1;
  const uint32_t out_max = out.sixteen_bit ? 65535 : 255;
  out.expected.resize(size_t{spec.width} * spec.height * 4 * out_bytes);
  for (size_t p = 0; p < size_t{spec.width} * spec.height; ++p) {
    const uint16_t* s = &samples[p * channels];
    uint32_t rgba[4];
    auto scale = [&](uint32_t v) { return v * (out_max / max_value); };  // exact for 1,2,4,8,16
    if (palette) {
      rgba[0] = colors[s[0]].red;
      rgba[1] = colors[s[0]].green;
      rgba[2] = colors[s[0]].blue;
      rgba[3] = spec.trns ? palette_alpha[s[0]] : 255;
    } else if (channels <= 2) {
      rgba[0] = rgba[1] = rgba[2] = scale(s[0]);
      rgba[3] = channels == 2 ? scale(s[1]) : out_max;
      if (spec.trns && channels == 1 && s[0] == trns_color.gray) rgba[3] = 0;
    } else {
      for (int c = 0; c < 3; ++c) rgba[c] = scale(s[c]);
      rgba[3] = channels == 4 ? scale(s[3]) : out_max;
      if (spec.trns && channels == 3 && s[0] == trns_color.red && s[1] == trns_color.green &&
          s[2] == trns_color.blue) {
        rgba[3] = 0;
      }
    }
    for (int c = 0; c < 4; ++c) {
      if (out.sixteen_bit) {  // little-endian, as the service's RGBA16
        out.expected[(p * 4 + c) * 2] = std::byte(rgba[c] & 0xff);
        out.expected[(p * 4 + c) * 2 + 1] = std::byte(rgba[c] >> 8);
      } else {
        out.expected[p * 4 + c] = std::byte(rgba[c]);
      }
    }
  }

  // Rows for libpng: one byte per sample below 8 bits (png_set_packing packs
  // them), big-endian pairs at 16.
  const int sample_bytes = spec.bit_depth == 16 ? 2 : 1;
  std::vector<png_byte> data(samples.size() * sample_bytes);
  for (size_t i = 0; i < samples.size(); ++i) {
    if (sample_bytes == 2) {
      data[i * 2] = static_cast<png_byte>(samples[i] >> 8);
      data[i * 2 + 1] = static_cast<png_byte>(samples[i] & 0xff);
    } else {
      data[i] = static_cast<png_byte>(samples[i]);
    }
  }
  std::vector<png_bytep> rows(spec.height);
  for (uint32_t y = 0; y < spec.height; ++y) {
    rows[y] = data.data() + size_t{y} * spec.width * channels * sample_bytes;
  }

  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  png_set_write_fn(png, &out.file, Append, NoFlush);
  const bool ok = Write(png, info, spec, colors, palette_alpha, trns_color, rows.data());
  png_destroy_write_struct(&png, &info);
  if (!ok) throw std::runtime_error("libpng failed writing a test PNG");
  return out;
}

std::vector<PngSpec> AllPngKinds() {
  std::vector<PngSpec> kinds;
  uint32_t seed = 1;
  auto add = [&](int type, int depth, bool trns, bool interlaced) {
    PngSpec spec;
    spec.color_type = type;
    spec.bit_depth = depth;
    spec.trns = trns;
    spec.interlaced = interlaced;
    spec.seed = seed++;
    // Odd sizes exercise partial bytes of packed rows and every Adam7 pass.
    spec.width = interlaced ? 13 : 7 + depth % 5;
    spec.height = interlaced ? 11 : 5;
    kinds.push_back(spec);
  };
  for (int depth : {1, 2, 4, 8, 16}) {
    add(PNG_COLOR_TYPE_GRAY, depth, false, false);
    add(PNG_COLOR_TYPE_GRAY, depth, true, false);
  }
  for (int depth : {1, 2, 4, 8}) {
    add(PNG_COLOR_TYPE_PALETTE, depth, false, false);
    add(PNG_COLOR_TYPE_PALETTE, depth, true, false);
  }
  for (int depth : {8, 16}) {
    add(PNG_COLOR_TYPE_RGB, depth, false, false);
    add(PNG_COLOR_TYPE_RGB, depth, true, false);
    add(PNG_COLOR_TYPE_GRAY_ALPHA, depth, false, false);
    add(PNG_COLOR_TYPE_RGB_ALPHA, depth, false, false);
  }
  add(PNG_COLOR_TYPE_GRAY, 1, false, true);
  add(PNG_COLOR_TYPE_PALETTE, 4, true, true);
  add(PNG_COLOR_TYPE_RGB, 8, false, true);
  add(PNG_COLOR_TYPE_RGB_ALPHA, 16, false, true);
  add(PNG_COLOR_TYPE_GRAY_ALPHA, 8, false, true);
  return kinds;
}

std::string PngSpecName(const PngSpec& spec) {
  const char* type = "?";
  switch (spec.color_type) {
    case PNG_COLOR_TYPE_GRAY: type = "Gray"; break;
    case PNG_COLOR_TYPE_GRAY_ALPHA: type = "GrayAlpha"; break;
    case PNG_COLOR_TYPE_RGB: type = "Rgb"; break;
    case PNG_COLOR_TYPE_RGB_ALPHA: type = "Rgba"; break;
    case PNG_COLOR_TYPE_PALETTE: type = "Palette"; break;
  }
  return absl::StrCat(type, spec.bit_depth, spec.trns ? "Trns" : "",
                      spec.interlaced ? "Interlaced" : "");
}

size_t ChunkDataOffset(const std::string& png, const char type[4]) {
  size_t pos = 8;
  while (pos + 8 <= png.size()) {
    const auto* p = reinterpret_cast<const unsigned char*>(png.data() + pos);
    const uint32_t length = (uint32_t{p[0]} << 24) | (p[1] << 16) | (p[2] << 8) | p[3];
    if (std::memcmp(p + 4, type, 4) == 0) return pos + 8;
    pos += 12 + size_t{length};
  }
  return std::string::npos;
}

bool FixChunkCrc(std::string& png, const char type[4]) {
  const size_t data = ChunkDataOffset(png, type);
  if (data == std::string::npos) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(png.data() + data - 8);
  const uint32_t length = (uint32_t{p[0]} << 24) | (p[1] << 16) | (p[2] << 8) | p[3];
  if (length > png.size() || data + length + 4 > png.size()) return false;  // damaged length
  uLong crc = crc32(0, reinterpret_cast<const Bytef*>(png.data() + data - 4), length + 4);
  for (int i = 0; i < 4; ++i) {
    png[data + length + i] = static_cast<char>((crc >> (24 - 8 * i)) & 0xff);
  }
  return true;
}

std::string BuildPng(const std::vector<RawChunk>& chunks) {
  std::string out("\x89PNG\r\n\x1a\n", 8);
  auto put32 = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(v >> (24 - 8 * i)));
  };
  for (const RawChunk& chunk : chunks) {
    put32(static_cast<uint32_t>(chunk.data.size()));
    const std::string body = chunk.type + chunk.data;
    out += body;
    put32(static_cast<uint32_t>(
        crc32(0, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()))));
  }
  return out;
}

std::string IhdrData(uint32_t width, uint32_t height, int bit_depth, int color_type,
                     bool interlaced) {
  std::string d;
  for (uint32_t v : {width, height}) {
    for (int i = 0; i < 4; ++i) d.push_back(static_cast<char>(v >> (24 - 8 * i)));
  }
  d.push_back(static_cast<char>(bit_depth));
  d.push_back(static_cast<char>(color_type));
  d.push_back(0);
  d.push_back(0);
  d.push_back(interlaced ? 1 : 0);
  return d;
}

std::string ZlibCompress(const std::string& raw, int level) {
  uLongf size = compressBound(raw.size());
  std::string out(size, '\0');
  compress2(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(raw.data()),
            raw.size(), level);
  out.resize(size);
  return out;
}

std::string InflateIdat(const std::string& png, bool* ok) {
  std::string z;
  size_t pos = 8;
  while (pos + 12 <= png.size()) {
    const auto* p = reinterpret_cast<const unsigned char*>(png.data() + pos);
    const uint32_t length = (uint32_t{p[0]} << 24) | (p[1] << 16) | (p[2] << 8) | p[3];
    if (std::memcmp(p + 4, "IDAT", 4) == 0) z.append(png, pos + 8, length);
    pos += 12 + size_t{length};
  }
  z_stream s{};
  inflateInit(&s);
  std::string out;
  char buf[1 << 16];
  s.next_in = reinterpret_cast<Bytef*>(z.data());
  s.avail_in = static_cast<uInt>(z.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    s.next_out = reinterpret_cast<Bytef*>(buf);
    s.avail_out = sizeof(buf);
    rc = inflate(&s, Z_NO_FLUSH);
    out.append(buf, sizeof(buf) - s.avail_out);
  }
  *ok = rc == Z_STREAM_END && s.avail_in == 0;
  inflateEnd(&s);
  return out;
}

}  // namespace rgfx::testing
