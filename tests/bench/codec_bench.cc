// PNG codec benchmark (issue 7): libpng against the fast paths, and the raw
// inflate/deflate libraries on the same filtered rows, on a 1080p
// photograph-like image (or a PNG given with --png). Prints median
// milliseconds over --runs and output sizes; asserts nothing about speed.
//
//   rgfx-codec-bench [--runs 15] [--max_threads 16] [photo.png | --png photo.png]
//                    [--write_dir DIR]  (also writes the PNGs it made)
//                    [--candidates_only]  (only the cheaper-encode candidates)
#include <libdeflate.h>
#include <isa-l/igzip_lib.h>
#include <png.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_format.h"
#include "service/png_codec.h"
#include "service/png_fast_encode.h"
#include "tests/service/png_rows_reference.h"

ABSL_FLAG(std::string, png, "", "decode this PNG instead of the generated photo-like image");
ABSL_FLAG(int, width, 1920, "generated image width");
ABSL_FLAG(int, height, 1080, "generated image height");
ABSL_FLAG(int, runs, 15, "timed runs per measurement (median reported)");
ABSL_FLAG(int, max_threads, 0, "fast encode thread counts 1..this (0: hardware threads, <= 16)");
ABSL_FLAG(bool, candidates_only, false,
          "decode once, then only the encode candidates (cheaper encodes) and exit");
ABSL_FLAG(std::string, write_dir, "", "write the input and the encoded PNGs here");

namespace rgfx {
namespace {

using Clock = std::chrono::steady_clock;
using service::DeflateMethod;
using service::PngEncoder;
using service::PngRowFilter;

std::span<const std::byte> AsBytes(const std::string& s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

double ProcessCpuMs() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

// Wall time and CPU time (all threads) of the median run; on a shared,
// busy machine the CPU time is the steadier figure.
struct Timing {
  double wall_ms = 0;
  double cpu_ms = 0;
};

Timing MedianMs(const std::function<void()>& body) {
  body();  // warm-up: first-touch page faults, lazy tables
  std::vector<Timing> runs;
  for (int i = 0; i < std::max(1, absl::GetFlag(FLAGS_runs)); ++i) {
    const auto start = Clock::now();
    const double cpu_start = ProcessCpuMs();
    body();
    runs.push_back({std::chrono::duration<double, std::milli>(Clock::now() - start).count(),
                    ProcessCpuMs() - cpu_start});
  }
  std::sort(runs.begin(), runs.end(),
            [](const Timing& a, const Timing& b) { return a.wall_ms < b.wall_ms; });
  Timing median = runs[runs.size() / 2];
  std::sort(runs.begin(), runs.end(),
            [](const Timing& a, const Timing& b) { return a.cpu_ms < b.cpu_ms; });
  median.cpu_ms = runs[runs.size() / 2].cpu_ms;
  return median;
}

void Row(const std::string& what, Timing t, uint64_t bytes = 0) {
  std::printf("%-50s %8.2f ms %8.2f cpu-ms", what.c_str(), t.wall_ms, t.cpu_ms);
  if (bytes != 0) std::printf(" %10llu bytes", static_cast<unsigned long long>(bytes));
  std::printf("\n");
}

// Smooth gradients (sky, walls), fine texture (foliage, fabric) and sigma=2
// sensor noise, per channel; deterministic.
std::vector<std::byte> PhotoLike(uint32_t width, uint32_t height) {
  std::mt19937 rng(20261122);
  std::normal_distribution<float> noise(0.f, 2.f);
  std::vector<std::byte> rgba(size_t{width} * height * 4);
  for (uint32_t y = 0; y < height; ++y) {
    for (uint32_t x = 0; x < width; ++x) {
      const float u = float(x) / width, v = float(y) / height;
      // Texture strength varies over the image, as in a photograph.
      const float detail = 0.5f + 0.5f * std::sin(6.f * u + 3.f * v);
      const float texture = detail * (10.f * std::sin(x * 0.9f + 2.f * std::sin(y * 0.37f)) *
                                       std::sin(y * 0.71f + x * 0.05f));
      for (int c = 0; c < 3; ++c) {
        const float base = 120.f + 70.f * std::sin(2.5f * u + c) * std::cos(1.7f * v - 0.5f * c) +
                           30.f * v;
        const float value = base + texture + noise(rng);
        rgba[(size_t{y} * width + x) * 4 + c] = std::byte(std::clamp(std::lround(value), 0l, 255l));
      }
      rgba[(size_t{y} * width + x) * 4 + 3] = std::byte{255};
    }
  }
  return rgba;
}

void Append(png_structp png, png_bytep data, size_t n) {
  static_cast<std::string*>(png_get_io_ptr(png))->append(reinterpret_cast<char*>(data), n);
}
void NoFlush(png_structp) {}

bool WriteRgb(png_structp png, png_infop info, uint32_t width, uint32_t height,
              png_bytepp rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_compression_level(png, 6);
  png_write_info(png, info);
  png_write_image(png, rows);
  png_write_end(png, nullptr);
  return true;
}

// The input a client would send: RGB, libpng's adaptive filters, level 6.
std::string RgbPngLevel6(const std::vector<std::byte>& rgba, uint32_t width, uint32_t height) {
  std::vector<png_byte> rgb(size_t{width} * height * 3);
  for (size_t p = 0; p < size_t{width} * height; ++p) {
    for (int c = 0; c < 3; ++c) rgb[p * 3 + c] = static_cast<png_byte>(rgba[p * 4 + c]);
  }
  std::vector<png_bytep> rows(height);
  for (uint32_t y = 0; y < height; ++y) rows[y] = rgb.data() + size_t{y} * width * 3;
  std::string out;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  png_set_write_fn(png, &out, Append, NoFlush);
  const bool ok = WriteRgb(png, info, width, height, rows.data());
  png_destroy_write_struct(&png, &info);
  if (!ok) std::fprintf(stderr, "libpng failed writing the input\n");
  return out;
}

// The concatenated IDAT data (a zlib stream) and its inflated bytes.
std::string IdatStream(const std::string& png) {
  std::string z;
  size_t pos = 8;
  while (pos + 12 <= png.size()) {
    const auto* p = reinterpret_cast<const unsigned char*>(png.data() + pos);
    const uint32_t length = (uint32_t{p[0]} << 24) | (p[1] << 16) | (p[2] << 8) | p[3];
    if (std::memcmp(p + 4, "IDAT", 4) == 0) z.append(png, pos + 8, length);
    pos += 12 + size_t{length};
  }
  return z;
}

std::string ZlibInflate(const std::string& z, size_t size) {
  std::string out(size, '\0');
  uLongf n = size;
  uncompress(reinterpret_cast<Bytef*>(out.data()), &n, reinterpret_cast<const Bytef*>(z.data()),
             z.size());
  out.resize(n);
  return out;
}

void RawCodecs(const std::string& label, const std::string& filtered) {
  std::printf("\nraw deflate/inflate, level 1, of %s (%zu bytes):\n", label.c_str(),
              filtered.size());
  const auto* in = reinterpret_cast<const uint8_t*>(filtered.data());
  std::string out(compressBound(filtered.size()) + 1024, '\0');
  std::vector<uint8_t> back(filtered.size() + 64);
  // zlib
  uLongf zsize = 0;
  const Timing zlib_ms = MedianMs([&] {
    zsize = out.size();
    compress2(reinterpret_cast<Bytef*>(out.data()), &zsize, in, filtered.size(), 1);
  });
  Row("  deflate zlib level 1", zlib_ms, zsize);
  const std::string zstream = out.substr(0, zsize);
  Row("  inflate zlib", MedianMs([&] {
        uLongf n = back.size();
        uncompress(back.data(), &n, reinterpret_cast<const Bytef*>(zstream.data()),
                   zstream.size());
      }));
  // libdeflate
  libdeflate_compressor* compressor = libdeflate_alloc_compressor(1);
  libdeflate_decompressor* decompressor = libdeflate_alloc_decompressor();
  size_t dsize = 0;
  Row("  deflate libdeflate level 1", MedianMs([&] {
        dsize = libdeflate_zlib_compress(compressor, in, filtered.size(), out.data(), out.size());
      }),
      dsize);
  Row("  inflate libdeflate (zlib stream of zlib level 1)", MedianMs([&] {
        size_t n = 0;
        libdeflate_zlib_decompress(decompressor, zstream.data(), zstream.size(), back.data(),
                                   back.size(), &n);
      }));
  libdeflate_free_compressor(compressor);
  libdeflate_free_decompressor(decompressor);
  // ISA-L
  std::vector<uint8_t> level_buf(ISAL_DEF_LVL1_DEFAULT);
  size_t isize = 0;
  Row("  deflate ISA-L level 1", MedianMs([&] {
        isal_zstream s;
        isal_deflate_stateless_init(&s);
        s.level = 1;
        s.level_buf = level_buf.data();
        s.level_buf_size = static_cast<uint32_t>(level_buf.size());
        s.gzip_flag = IGZIP_ZLIB;
        s.end_of_stream = 1;
        s.next_in = const_cast<uint8_t*>(in);
        s.avail_in = static_cast<uint32_t>(filtered.size());
        s.next_out = reinterpret_cast<uint8_t*>(out.data());
        s.avail_out = static_cast<uint32_t>(out.size());
        isal_deflate_stateless(&s);
        isize = s.total_out;
      }),
      isize);
  Row("  inflate ISA-L (zlib stream of zlib level 1)", MedianMs([&] {
        inflate_state s;
        isal_inflate_init(&s);
        s.crc_flag = ISAL_ZLIB;
        s.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(zstream.data()));
        s.avail_in = static_cast<uint32_t>(zstream.size());
        s.next_out = back.data();
        s.avail_out = static_cast<uint32_t>(back.size());
        isal_inflate_stateless(&s);
      }));
}

// Cheaper encodes (the target: <= 30 CPU-ms, no larger than zlib level 1 on
// the same filtered rows): the encoder itself, one thread, with settings
// the service does not reach through PngEncodeOptions (ISA-L level 0, how
// often the adaptive filter choice is made).
void EncodeCandidates(const std::vector<std::byte>& rgba, uint32_t width, uint32_t height) {
  std::printf("\nencode candidates (EncodePngFast, 1 thread; zlib-1 = zlib level 1 on the "
              "same filtered rows):\n");
  struct Candidate {
    const char* name;
    service::FastEncodeParams params;
    // Deflate only: the rows come filtered, as the service's GPU export
    // writes them (the adaptive choice on every row); opaque images only.
    bool gpu_rows = false;
  };
  const Candidate candidates[] = {
      {"level 1, adaptive every row (before)", {.isal_level = 1, .adaptive_row_step = 1}},
      {"level 1, adaptive every 16th row", {.isal_level = 1}},
      {"level 2, adaptive every 16th row", {.isal_level = 2}},
      {"level 3, adaptive every 16th row", {.isal_level = 3}},
      {"level 1, every 16th row, opaque as RGB", {.isal_level = 1, .opaque_as_rgb = true}},
      {"level 3, every 16th row, opaque as RGB", {.isal_level = 3, .opaque_as_rgb = true}},
      {"level 1, PAETH", {.isal_level = 1, .filter = PngRowFilter::kPaeth}},
      {"level 1, SUB", {.isal_level = 1, .filter = PngRowFilter::kSub}},
      {"runs, every 16th row, opaque as RGB",
       {.method = DeflateMethod::kRuns, .opaque_as_rgb = true}},
      {"sampled (level 1's), every 16th row, opaque as RGB",
       {.method = DeflateMethod::kSmallerOnSample, .opaque_as_rgb = true}},
      {"level 1, rows filtered on the GPU (deflate only)", {.isal_level = 1}, true},
      {"runs, rows filtered on the GPU (deflate only)", {.method = DeflateMethod::kRuns}, true},
      {"sampled (level 1's), rows filtered on the GPU",
       {.method = DeflateMethod::kSmallerOnSample}, true},
  };
  const bool opaque = service::AllOpaque(rgba, false);
  const std::vector<std::byte> gpu_rows =
      opaque ? testing::FilterRowsRgb8(rgba, width, height) : std::vector<std::byte>();
  // Round robin over the candidates, so that the load of a shared machine
  // falls on all of them alike; median and best CPU time of --runs.
  const size_t count = std::size(candidates);
  std::vector<std::vector<double>> cpu(count);
  std::vector<std::string> out(count);
  for (int run = 0; run <= std::max(1, absl::GetFlag(FLAGS_runs)); ++run) {
    for (size_t k = 0; k < count; ++k) {
      if (candidates[k].gpu_rows && !opaque) continue;
      const double start = ProcessCpuMs();
      out[k] = candidates[k].gpu_rows
                   ? *service::EncodePngFilteredRgb8(gpu_rows, width, height, candidates[k].params)
                   : *service::EncodePngFast(rgba, width, height, false, candidates[k].params);
      if (run > 0) cpu[k].push_back(ProcessCpuMs() - start);  // run 0 warms up
    }
  }
  for (size_t k = 0; k < count; ++k) {
    if (cpu[k].empty()) {
      std::printf("  %-50s (skipped: the image has translucent pixels)\n", candidates[k].name);
      continue;
    }
    std::sort(cpu[k].begin(), cpu[k].end());
    // IHDR's colour type (byte 25): 2 = RGB rows, 6 = RGBA rows.
    const size_t channels = static_cast<uint8_t>(out[k][25]) == 2 ? 3 : 4;
    const size_t row_total = size_t{height} * (width * channels + 1);
    const std::string rows = ZlibInflate(IdatStream(out[k]), row_total);
    uLongf zsize = compressBound(rows.size());
    std::string z(zsize, '\0');
    compress2(reinterpret_cast<Bytef*>(z.data()), &zsize,
              reinterpret_cast<const Bytef*>(rows.data()), rows.size(), 1);
    std::printf("  %-50s %7.2f cpu-ms (best %6.2f) %9zu bytes  zlib-1 %9lu  %+5.1f%%%s\n",
                candidates[k].name, cpu[k][cpu[k].size() / 2], cpu[k][0], out[k].size(), zsize,
                100.0 * (double(out[k].size()) / zsize - 1),
                rows.size() == row_total ? "" : "  BAD ROWS");
  }
}

void WriteFile(const std::string& name, const std::string& data) {
  const std::string dir = absl::GetFlag(FLAGS_write_dir);
  if (dir.empty()) return;
  std::ofstream(dir + "/" + name, std::ios::binary) << data;
}

int Main() {
  std::string input;
  std::vector<std::byte> rgba;
  uint32_t width = 0, height = 0;
  if (!absl::GetFlag(FLAGS_png).empty()) {
    std::ifstream file(absl::GetFlag(FLAGS_png), std::ios::binary);
    if (!file) {
      std::fprintf(stderr, "cannot read %s\n", absl::GetFlag(FLAGS_png).c_str());
      return 1;
    }
    std::stringstream buffer;
    buffer << file.rdbuf();
    input = buffer.str();
  } else {
    width = static_cast<uint32_t>(absl::GetFlag(FLAGS_width));
    height = static_cast<uint32_t>(absl::GetFlag(FLAGS_height));
    input = RgbPngLevel6(PhotoLike(width, height), width, height);
  }
  absl::StatusOr<service::PngInfo> info = service::ReadPngHeader("input", AsBytes(input), ~0ull);
  if (!info.ok()) {
    std::fprintf(stderr, "%s\n", info.status().ToString().c_str());
    return 1;
  }
  width = info->width;
  height = info->height;
  if (info->format != graph::PixelFormat::kRgba8) {
    std::fprintf(stderr, "the benchmark wants an 8-bit PNG\n");
    return 1;
  }
  WriteFile("input.png", input);
  std::printf("image %ux%u, colour type %d, %d-bit, input PNG %zu bytes; %u hardware threads\n",
              width, height, info->color_type, info->bit_depth, input.size(),
              std::thread::hardware_concurrency());
  rgba.resize(info->decoded_bytes);

  if (absl::GetFlag(FLAGS_candidates_only)) {
    if (absl::Status s = service::DecodePngInto("input", AsBytes(input), *info, rgba); !s.ok()) {
      std::fprintf(stderr, "%s\n", s.ToString().c_str());
      return 1;
    }
    EncodeCandidates(rgba, width, height);
    return 0;
  }
  std::printf("\ndecode (input PNG -> RGBA8):\n");
  Row("  libpng", MedianMs([&] {
        (void)service::DecodePngInto("input", AsBytes(input), *info, rgba,
                                     {.allow_fast_path = false});
      }));
  absl::Status fast_status;
  Row("  fast (ISA-L + SIMD unfilter), one thread (default)", MedianMs([&] {
        fast_status = service::DecodePngInto("input", AsBytes(input), *info, rgba,
                                             {.pipelined = false});
      }));
  if (!fast_status.ok()) std::printf("  fast decode: %s\n", fast_status.ToString().c_str());
  Row("  fast, pipelined", MedianMs([&] {
        (void)service::DecodePngInto("input", AsBytes(input), *info, rgba, {.pipelined = true});
      }));

  std::printf("\nencode (RGBA8 -> PNG):\n");
  std::string png;
  auto encode = [&](const service::PngEncodeOptions& options) {
    png = *service::EncodePng(rgba, width, height, graph::PixelFormat::kRgba8, options);
  };
  const Timing libpng_ms = MedianMs(
      [&] { encode({.compression_level = 1, .encoder = PngEncoder::kLibpng}); });
  Row("  libpng level 1, SUB", libpng_ms, png.size());
  WriteFile("libpng-sub-l1.png", png);

  struct Filter {
    PngRowFilter filter;
    const char* name;
  } filters[] = {{PngRowFilter::kSub, "SUB"},
                 {PngRowFilter::kUp, "UP"},
                 {PngRowFilter::kPaeth, "PAETH"},
                 {PngRowFilter::kAdaptive, "adaptive (16th rows)"}};
  std::string adaptive_rows;
  for (const Filter& f : filters) {
    const Timing ms = MedianMs([&] { encode({.fast_filter = f.filter, .threads = 1}); });
    // zlib level 1 on exactly the rows this encoder filtered: the bar.
    const std::string rows = ZlibInflate(IdatStream(png), size_t{height} * (width * 4 + 1));
    uLongf zsize = compressBound(rows.size());
    std::string z(zsize, '\0');
    compress2(reinterpret_cast<Bytef*>(z.data()), &zsize,
              reinterpret_cast<const Bytef*>(rows.data()), rows.size(), 1);
    Row(absl::StrFormat("  fast ISA-L level 1, %s, 1 thread", f.name), ms, png.size());
    std::printf("%-50s %27s %10lu bytes\n", "    zlib level 1 on the same filtered rows", "",
                zsize);
    WriteFile(absl::StrFormat("fast-%s-l1.png", f.name), png);
    if (f.filter == PngRowFilter::kAdaptive) adaptive_rows = rows;
  }
  for (int level : {2, 3}) {
    const Timing ms = MedianMs([&] { encode({.compression_level = level, .threads = 1}); });
    Row(absl::StrFormat("  fast ISA-L level %d, adaptive, 1 thread", level), ms, png.size());
  }
  int max_threads = absl::GetFlag(FLAGS_max_threads);
  if (max_threads <= 0) {
    max_threads = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 16u));
  }
  std::vector<int> counts;
  for (int t : {1, 2, 3, 4, 6, 8, 12, 16}) {
    if (t < max_threads) counts.push_back(t);
  }
  counts.push_back(max_threads);
  for (int threads : counts) {
    const Timing ms = MedianMs([&] { encode({.threads = threads}); });
    Row(absl::StrFormat("  fast default (level 1, adaptive), %d thread%s", threads, threads > 1 ? "s" : ""),
        ms, png.size());
    WriteFile(absl::StrFormat("fast-default-%dt.png", threads), png);
  }
  for (int threads : {1, max_threads}) {
    const Timing ms = MedianMs([&] { encode({.threads = threads, .opaque_as_rgb = true}); });
    Row(absl::StrFormat("  fast default + opaque_as_rgb (RGB), %d thread%s", threads,
                        threads > 1 ? "s" : ""),
        ms, png.size());
  }

  EncodeCandidates(rgba, width, height);

  // Decoding what the service itself writes (RGBA8, the default filter).
  encode({.threads = 1});
  const std::string own = png;
  absl::StatusOr<service::PngInfo> own_info = service::ReadPngHeader("own", AsBytes(own), ~0ull);
  std::vector<std::byte> own_rgba(own_info->decoded_bytes);
  std::printf("\ndecode (the fast encoder's default output, RGBA8, %zu bytes):\n", own.size());
  Row("  libpng", MedianMs([&] {
        (void)service::DecodePngInto("own", AsBytes(own), *own_info, own_rgba,
                                     {.allow_fast_path = false});
      }));
  Row("  fast (straight into RGBA), one thread (default)", MedianMs([&] {
        (void)service::DecodePngInto("own", AsBytes(own), *own_info, own_rgba,
                                     {.pipelined = false});
      }));
  Row("  fast, pipelined", MedianMs([&] {
        (void)service::DecodePngInto("own", AsBytes(own), *own_info, own_rgba,
                                     {.pipelined = true});
      }));
  if (own_rgba != rgba) std::printf("  MISMATCH: the round trip changed pixels\n");
  std::printf("\n");
  Row("  spawning and joining 7 empty std::threads", MedianMs([] {
        std::vector<std::jthread> t;
        for (int i = 0; i < 7; ++i) t.emplace_back([] {});
      }));

  // The raw libraries on the input's own filtered rows (RGB, libpng's
  // adaptive filters: what the figures were measured on) and on the
  // rows the default fast encoder filters (RGBA, adaptive).
  const size_t input_rows_bytes =
      size_t{height} * (size_t{width} * (info->color_type == 2 ? 3 : 4) + 1);
  if (info->color_type == PNG_COLOR_TYPE_RGB || info->color_type == PNG_COLOR_TYPE_RGB_ALPHA) {
    RawCodecs("the input's filtered rows", ZlibInflate(IdatStream(input), input_rows_bytes));
  }
  RawCodecs("the RGBA rows the fast encoder filtered (adaptive)", adaptive_rows);
  return 0;
}

}  // namespace
}  // namespace rgfx

int main(int argc, char** argv) {
  const std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  if (positional.size() == 2) {
    absl::SetFlag(&FLAGS_png, positional[1]);  // rgfx-codec-bench photo.png
  } else if (positional.size() > 2) {
    std::fprintf(stderr, "usage: %s [flags] [photo.png]\n", argv[0]);
    return 2;
  }
  return rgfx::Main();
}
