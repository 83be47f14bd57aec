// rgfx: the command-line client of rgfx-server.
//
//   rgfx process --server ADDR --graph FILE.json [--set pass.param=value]... [--report_error]
//                IN.png... -o OUT
//   rgfx passes | info | health [--server ADDR] [--json]
//   rgfx bench [--server ADDR] [--out DIR] [--width W --height H --radius R ...]
//   rgfx load --graph FILE.json (IN.png... | --images DIR|A.png,B.png) [-c N] [-n N] [-z 20s]
//             [--rps R] [--connections N] [--warmup N|2s] [--sweep 1,4,16] [--format F]
//   every subcommand: [--tls_ca CA.pem [--tls_cert C.pem --tls_key K.pem] [--tls_server_name N]]
//
// Input images are named after their file's stem, or NAME=PATH; a single
// image for a graph that reads a single outside resource takes its name.
#include <grpcpp/grpcpp.h>
#include <malloc.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <google/protobuf/util/json_util.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/time/time.h"
#include "absl/strings/numbers.h"
#include "client/bench.h"
#include "client/channel.h"
#include "client/load.h"
#include "client/load_images.h"
#include "client/load_report.h"
#include "client/load_stats.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/graph_file.h"
#include "rgfx/v1/post_process.grpc.pb.h"
#include "grpc/health/v1/health.grpc.pb.h"

ABSL_FLAG(std::string, server, "localhost:50051",
          "rgfx-server address: host:port, or unix:PATH for a server on a Unix socket");
ABSL_FLAG(std::string, tls_ca, "",
          "PEM CA certificates that signed the server's certificate; set: TLS (default plaintext)");
ABSL_FLAG(std::string, tls_cert, "", "PEM client certificate for mutual TLS (with --tls_key)");
ABSL_FLAG(std::string, tls_key, "", "PEM private key of --tls_cert");
ABSL_FLAG(std::string, tls_server_name, "",
          "name to check the server's certificate against (default: the --server host)");
ABSL_FLAG(std::string, graph, "", "graph file (protobuf JSON of rgfx.v1.Graph)");
ABSL_FLAG(std::vector<std::string>, set, {}, "pass.param=value overrides, comma-separated");
ABSL_FLAG(std::string, o, "", "output file (one output) or directory");
ABSL_FLAG(bool, json, false, "print the response metadata (or catalog/info) as JSON");
ABSL_FLAG(std::string, output_encoding, "", "PNG, RGBA8, RGBA16, RGBA16F or RGBA32F (default: like the input)");
ABSL_FLAG(bool, png_keep_alpha, false,
          "PNG outputs: always RGBA (default: opaque outputs come back as RGB PNGs)");
ABSL_FLAG(int, png_level, -1, "PNG compression level 0-9 (default: the server's, 1)");
ABSL_FLAG(std::string, working_format, "", "RGBA16F or RGBA32F (default: the server's)");
ABSL_FLAG(bool, report_error, false,
          "process: also run approximate passes exact and print each output's PSNR against "
          "that (costs one or two more GPU runs)");
ABSL_FLAG(double, timeout, 120, "deadline in seconds");
ABSL_FLAG(std::string, out, "", "bench: directory for CSV and SVG results");
ABSL_FLAG(int, width, 1920, "bench: image width in pixels");
ABSL_FLAG(int, height, 1080, "bench: image height in pixels");
ABSL_FLAG(int, radius, 64, "bench: blur radius of the lineage table (sigma = radius / 2)");
ABSL_FLAG(std::vector<std::string>, radii, std::vector<std::string>({"4", "16", "64", "256"}),
          "bench: radii of the sweep");
ABSL_FLAG(int, runs, 30, "bench: timed requests per configuration");
ABSL_FLAG(std::string, warmup, "",
          "bench: untimed requests first (default 10); load: answers left out of the "
          "statistics, a count (100) or a duration (2s) from the start (default 0)");
ABSL_FLAG(int, sweep_runs, 10, "bench: timed requests per sweep cell");
ABSL_FLAG(bool, branch_table, true, "bench: measure the branch_lab table");
ABSL_FLAG(int, concurrency, 8,
          "load (-c): concurrent callers, one request in flight each; with --rps the most "
          "requests in flight");
ABSL_FLAG(int64_t, requests, -1,
          "load (-n): requests to send in all, warm-up included (default 200; no bound when "
          "--duration is given)");
ABSL_FLAG(absl::Duration, duration, absl::ZeroDuration(),
          "load (-z): send for this long (e.g. 20s, 1m)");
ABSL_FLAG(double, max_seconds, 60, "load: stop sending after this many seconds (without -z)");
ABSL_FLAG(double, rps, 0,
          "load: open loop at this total rate: requests due at fixed times, latency counted "
          "from when each was due (0: closed loop)");
ABSL_FLAG(int, connections, 1, "load: gRPC connections the callers are spread over");
ABSL_FLAG(std::vector<std::string>, sweep, {},
          "load: concurrency levels to run one after another (1,4,16,64), a row each");
ABSL_FLAG(std::vector<std::string>, images, {},
          "load: input images rotated over requests: files, or folders of .png files");
ABSL_FLAG(std::string, format, "text", "load: report as text, json or csv");
ABSL_FLAG(int64_t, max_errors, 0, "load: stop after this many failed requests (0: no bound)");
ABSL_FLAG(absl::Duration, give_up, absl::Seconds(3),
          "load: stop when calls fail UNAVAILABLE and none succeeded for this long");
ABSL_FLAG(std::string, input_encoding, "",
          "PNG (default) or RGBA8: send inputs as raw RGBA8 pixels decoded on the client");
ABSL_FLAG(std::string, input_color_space, "",
          "SRGB or LINEAR: what the inputs' values are (default: the server's, sRGB for PNG and "
          "8-bit; LINEAR blurs the values as they are, as most libraries do)");
ABSL_FLAG(int, gpu_repeats, 20,
          "bench: GPU repetitions per request (medians at sustained clocks; 1 = cold single runs)");

namespace {

namespace fs = std::filesystem;
using namespace rgfx;

int Fail(const std::string& message) {
  std::fprintf(stderr, "rgfx: %s\n", message.c_str());
  return 1;
}

int Fail(const grpc::Status& status) {
  return Fail(absl::StrCat("error ", client::StatusCodeName(status.error_code()), ": ",
                           status.error_message()));
}

std::unique_ptr<grpc::ClientContext> Context() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() +
                        std::chrono::milliseconds(int64_t(absl::GetFlag(FLAGS_timeout) * 1000)));
  return context;
}

// The channel every subcommand uses (client/channel.h); a bad TLS flag or
// file ends the program with its message, before anything is sent.
std::shared_ptr<grpc::Channel> Channel(grpc::ChannelArguments args = {}) {
  client::ChannelOptions options;
  options.address = absl::GetFlag(FLAGS_server);
  options.tls_ca_file = absl::GetFlag(FLAGS_tls_ca);
  options.tls_cert_file = absl::GetFlag(FLAGS_tls_cert);
  options.tls_key_file = absl::GetFlag(FLAGS_tls_key);
  options.tls_server_name = absl::GetFlag(FLAGS_tls_server_name);
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = client::MakeChannel(options, args);
  if (!channel.ok()) {
    std::fprintf(stderr, "rgfx: %s\n", std::string(channel.status().message()).c_str());
    std::exit(1);
  }
  return *std::move(channel);
}

std::string ToJson(const google::protobuf::Message& message) {
  std::string out;
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(message, &out, options);
  return out;
}

bool ReadFile(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream buffer;
  buffer << in.rdbuf();
  out = buffer.str();
  return true;
}

std::string Ms(int64_t ns) { return absl::StrFormat("%.3f", ns / 1e6); }

void PrintTable(const v1::ProcessResponse& r) {
  std::printf("%-24s %-16s %-12s %12s\n", "pass", "type", "variant", "GPU ms");
  for (const v1::PassTiming& p : r.passes()) {
    std::printf("%-24s %-16s %-12s %12s\n", p.pass().c_str(), p.type().c_str(),
                p.variant().c_str(), p.has_gpu_ns() ? Ms(p.gpu_ns()).c_str() : "n/a");
    for (const v1::StepTiming& s : p.steps()) {
      if (p.steps_size() > 1) {
        std::printf("  %-22s %-16s %-12s %12s\n", s.label().c_str(), "", "",
                    s.has_gpu_ns() ? Ms(s.gpu_ns()).c_str() : "n/a");
      }
    }
  }
  for (const v1::PassTiming& p : r.passes()) {
    if (!p.approximate()) continue;
    std::printf("%s: %s is approximate%s\n", p.pass().c_str(), p.variant().c_str(),
                p.has_stated_psnr_db()
                    ? absl::StrFormat("; stated PSNR %.1f dB against exact on noise",
                                      p.stated_psnr_db()).c_str()
                    : "");
  }
  for (const v1::OutputError& e : r.output_errors()) {
    std::string passes;
    for (const std::string& name : e.approximate_passes()) {
      absl::StrAppend(&passes, passes.empty() ? "" : ", ", name);
    }
    std::printf("%s: PSNR %s against exact (%s run exact)\n", e.output().c_str(),
                std::isinf(e.psnr_vs_exact_db())
                    ? "inf dB (identical)"
                    : absl::StrFormat("%.2f dB", e.psnr_vs_exact_db()).c_str(),
                passes.c_str());
  }
  const v1::StageTimings& t = r.stages();
  std::printf("\nstages (ms): queue %s  decode %s  compile %s  upload %s  submit %s  gpu %s  "
              "download %s  encode %s  total %s\n",
              Ms(t.queue_ns()).c_str(), Ms(t.decode_ns()).c_str(), Ms(t.compile_ns()).c_str(),
              Ms(t.upload_ns()).c_str(), Ms(t.submit_ns()).c_str(),
              t.has_gpu_ns() ? Ms(t.gpu_ns()).c_str() : "n/a", Ms(t.download_ns()).c_str(),
              Ms(t.encode_ns()).c_str(), Ms(t.total_ns()).c_str());
  const v1::GraphStats& g = r.stats();
  std::string culled;
  for (const std::string& name : g.culled()) absl::StrAppend(&culled, culled.empty() ? " (" : ", ", name);
  if (!culled.empty()) culled += ")";
  std::printf("graph %s: %d passes run, %d culled%s, %d barriers, %d transient buffers, "
              "%.2f MB (%.2f MB without aliasing)%s\n",
              r.graph_hash().c_str(), g.passes_run(), g.passes_culled(), culled.c_str(),
              g.barriers(), g.transient_buffers(), g.transient_bytes() / 1e6,
              g.transient_bytes_unaliased() / 1e6, g.cache_hit() ? ", cached" : "");
  std::printf("device: %s\n", r.device().c_str());
}

std::string Extension(v1::ImageEncoding encoding) {
  switch (encoding) {
    case v1::IMAGE_ENCODING_PNG: return ".png";
    case v1::IMAGE_ENCODING_RGBA8: return ".rgba8";
    case v1::IMAGE_ENCODING_RGBA16: return ".rgba16";
    case v1::IMAGE_ENCODING_RGBA16F: return ".rgba16f";
    case v1::IMAGE_ENCODING_RGBA32F: return ".rgba32f";
    default: return ".bin";
  }
}

// The request `process` and `load` send: --graph with --set overrides, the
// input images, and the options from the flags.
absl::StatusOr<v1::ProcessRequest> BuildRequest(const std::vector<std::string>& files) {
  if (absl::GetFlag(FLAGS_graph).empty()) return absl::InvalidArgumentError("needs --graph FILE.json");
  if (files.empty()) return absl::InvalidArgumentError("needs at least one input image");
  absl::StatusOr<v1::Graph> graph = client::LoadGraphFile(absl::GetFlag(FLAGS_graph));
  if (!graph.ok()) return graph.status();
  for (const std::string& set : absl::GetFlag(FLAGS_set)) {
    if (absl::Status s = client::ApplySet(*graph, set); !s.ok()) return s;
  }
  v1::ProcessRequest request;
  *request.mutable_graph() = *graph;
  const std::vector<std::string> external = client::ExternalInputs(*graph);
  v1::ColorSpace color_space = v1::COLOR_SPACE_UNSPECIFIED;
  if (const std::string c = absl::AsciiStrToUpper(absl::GetFlag(FLAGS_input_color_space)); !c.empty()) {
    if (!v1::ColorSpace_Parse(absl::StrCat("COLOR_SPACE_", c), &color_space) ||
        color_space == v1::COLOR_SPACE_UNSPECIFIED) {
      return absl::InvalidArgumentError(absl::StrCat("--input_color_space ", c, ": SRGB or LINEAR"));
    }
  }
  for (const std::string& arg : files) {
    v1::Image& image = *request.add_inputs();
    image.set_color_space(color_space);
    std::string path = arg;
    const size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      image.set_name(arg.substr(0, eq));
      path = arg.substr(eq + 1);
    } else if (files.size() == 1 && external.size() == 1) {
      image.set_name(external[0]);
    } else {
      image.set_name(fs::path(arg).stem().string());
    }
    if (!ReadFile(path, *image.mutable_data())) return absl::NotFoundError(absl::StrCat("cannot read ", path));
    image.set_encoding(v1::IMAGE_ENCODING_PNG);
    const std::string input_encoding = absl::AsciiStrToUpper(absl::GetFlag(FLAGS_input_encoding));
    if (input_encoding == "RGBA8") {
      absl::StatusOr<client::Rgba8Image> raw = client::DecodePngToRgba8(image.data());
      if (!raw.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", raw.status().message()));
      image.set_encoding(v1::IMAGE_ENCODING_RGBA8);
      image.set_width(raw->width);
      image.set_height(raw->height);
      *image.mutable_data() = std::move(raw->pixels);
    } else if (!input_encoding.empty() && input_encoding != "PNG") {
      return absl::InvalidArgumentError(
          absl::StrCat("--input_encoding ", input_encoding, ": PNG or RGBA8"));
    }
  }
  v1::Options& options = *request.mutable_options();
  if (const std::string e = absl::GetFlag(FLAGS_output_encoding); !e.empty()) {
    v1::ImageEncoding encoding;
    if (!v1::ImageEncoding_Parse(absl::StrCat("IMAGE_ENCODING_", e), &encoding)) {
      return absl::InvalidArgumentError(absl::StrCat("--output_encoding ", e, ": unknown"));
    }
    options.set_output_encoding(encoding);
  }
  options.set_report_error(absl::GetFlag(FLAGS_report_error));
  if (absl::GetFlag(FLAGS_png_level) >= 0) options.set_png_compression_level(absl::GetFlag(FLAGS_png_level));
  options.set_png_keep_alpha(absl::GetFlag(FLAGS_png_keep_alpha));
  if (const std::string w = absl::GetFlag(FLAGS_working_format); !w.empty()) {
    v1::WorkingFormat format;
    if (!v1::WorkingFormat_Parse(absl::StrCat("WORKING_FORMAT_", w), &format)) {
      return absl::InvalidArgumentError(absl::StrCat("--working_format ", w, ": unknown"));
    }
    options.set_working_format(format);
  }
  return request;
}

int Process(const std::vector<std::string>& files) {
  absl::StatusOr<v1::ProcessRequest> request = BuildRequest(files);
  if (!request.ok()) return Fail(absl::StrCat("process: ", request.status().message()));
  auto stub = v1::PostProcess::NewStub(Channel());
  v1::ProcessResponse response;
  auto context = Context();
  grpc::Status status = stub->Process(context.get(), *request, &response);
  if (!status.ok()) return Fail(status);

  const std::string out = absl::GetFlag(FLAGS_o);
  const bool to_file = response.outputs_size() == 1 && !out.empty() && !fs::is_directory(out) &&
                       fs::path(out).has_extension();
  if (!out.empty() && !to_file) fs::create_directories(out);
  for (v1::Image& image : *response.mutable_outputs()) {
    if (out.empty()) break;
    const std::string path =
        to_file ? out : (fs::path(out) / (image.name() + Extension(image.encoding()))).string();
    std::ofstream file(path, std::ios::binary);
    file.write(image.data().data(), static_cast<std::streamsize>(image.data().size()));
    if (!file) return Fail(absl::StrCat("cannot write ", path));
    if (!absl::GetFlag(FLAGS_json)) {
      std::printf("wrote %s (%ux%u, %zu bytes)\n", path.c_str(), image.width(), image.height(),
                  image.data().size());
    }
    image.clear_data();  // metadata only from here on
  }
  if (absl::GetFlag(FLAGS_json)) {
    for (v1::Image& image : *response.mutable_outputs()) image.clear_data();
    std::printf("%s\n", ToJson(response).c_str());
  } else {
    PrintTable(response);
  }
  return 0;
}

int Passes() {
  auto stub = v1::PostProcess::NewStub(Channel());
  v1::ListPassesResponse response;
  auto context = Context();
  grpc::Status status = stub->ListPasses(context.get(), {}, &response);
  if (!status.ok()) return Fail(status);
  if (absl::GetFlag(FLAGS_json)) {
    std::printf("%s\n", ToJson(response).c_str());
    return 0;
  }
  for (const v1::PassInfo& pass : response.passes()) {
    std::printf("%s — %s\n", pass.name().c_str(), pass.doc().c_str());
    for (const v1::ParamInfo& p : pass.params()) {
      std::string range;
      if (p.type() == "int" || p.type() == "float") range = absl::StrCat(" [", p.min(), ", ", p.max(), "]");
      for (int i = 0; i < p.enum_values_size(); ++i) {
        absl::StrAppend(&range, i ? "|" : " {", p.enum_values(i), i + 1 == p.enum_values_size() ? "}" : "");
      }
      std::printf("  %-12s %-6s default %-8s%s  %s\n", p.name().c_str(), p.type().c_str(),
                  p.default_value().empty() ? "(derived)" : p.default_value().c_str(),
                  range.c_str(), p.doc().c_str());
    }
    for (const std::string& note : pass.notes()) std::printf("  note: %s\n", note.c_str());
  }
  return 0;
}

int Info() {
  auto stub = v1::PostProcess::NewStub(Channel());
  v1::DeviceInfo info;
  auto context = Context();
  grpc::Status status = stub->GetDeviceInfo(context.get(), {}, &info);
  if (!status.ok()) return Fail(status);
  if (absl::GetFlag(FLAGS_json)) {
    std::printf("%s\n", ToJson(info).c_str());
    return 0;
  }
  // The tuning notes are long sentences: printed as lines, not JSON strings.
  v1::DeviceInfo rest = info;
  rest.clear_tuning_notes();
  std::printf("%s\n", ToJson(rest).c_str());
  if (info.tuning_notes_size() > 0) std::printf("\ntuning on this device:\n");
  for (const std::string& note : info.tuning_notes()) std::printf("  %s\n", note.c_str());
  return 0;
}

int Health() {
  auto stub = grpc::health::v1::Health::NewStub(Channel());
  grpc::health::v1::HealthCheckRequest request;
  request.set_service("rgfx.v1.PostProcess");
  grpc::health::v1::HealthCheckResponse response;
  auto context = Context();
  grpc::Status status = stub->Check(context.get(), request, &response);
  if (!status.ok()) return Fail(status);
  const bool serving = response.status() == grpc::health::v1::HealthCheckResponse::SERVING;
  std::printf("%s\n", grpc::health::v1::HealthCheckResponse::ServingStatus_Name(response.status()).c_str());
  return serving ? 0 : 2;
}

// --warmup for load: "100" answers or "2s" from the start.
absl::Status ParseLoadWarmup(const std::string& text, client::LoadOptions& options) {
  if (text.empty()) return absl::OkStatus();
  if (absl::SimpleAtoi(text, &options.warmup_requests) && options.warmup_requests >= 0) {
    return absl::OkStatus();
  }
  absl::Duration d;
  if (absl::ParseDuration(text, &d) && d >= absl::ZeroDuration()) {
    options.warmup_requests = 0;
    options.warmup_seconds = absl::ToDoubleSeconds(d);
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--warmup ", text, ": a count of answers (100) or a duration (2s)"));
}

int Load(const std::vector<std::string>& files) {
  // Each response arrives in freshly allocated receive buffers of up to
  // 8 MB. By default glibc gives such memory back to the kernel as soon as
  // it is freed (a large chunk is unmapped, a thread arena's free top
  // trimmed), so the next call faults in and zeroes the pages again: on the
  // development VM, raw 1080p calls over loopback TCP took 400-700 page
  // faults and ~0.4 CPU-ms more each (not over a Unix socket), taken from
  // the server under test. Keep freed memory for the next call.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  // Requests to rotate over: one per --images file, or the one request the
  // positional files make (several files = several named inputs of it).
  // Each is serialized as soon as it is built and the message dropped: the
  // calls send the serialized bytes, and only they stay in memory.
  std::vector<client::SerializedRequest> requests;
  auto add_request = [&requests](const std::vector<std::string>& inputs) -> absl::Status {
    absl::StatusOr<v1::ProcessRequest> request = BuildRequest(inputs);
    if (!request.ok()) return request.status();
    absl::StatusOr<client::SerializedRequest> serialized = client::SerializeRequest(*request);
    if (!serialized.ok()) return serialized.status();
    requests.push_back(*std::move(serialized));
    return absl::OkStatus();
  };
  const std::vector<std::string> images = absl::GetFlag(FLAGS_images);
  if (!images.empty() && !files.empty()) {
    return Fail("load: give input images either as arguments or with --images, not both");
  }
  if (!images.empty()) {
    absl::StatusOr<std::vector<std::string>> paths = client::ExpandImagePaths(images);
    if (!paths.ok()) return Fail(absl::StrCat("load: --images ", paths.status().message()));
    for (const std::string& path : *paths) {
      if (absl::Status s = add_request({path}); !s.ok()) {
        return Fail(absl::StrCat("load: ", s.message()));
      }
    }
  } else if (absl::Status s = add_request(files); !s.ok()) {
    return Fail(absl::StrCat("load: ", s.message()));
  }
  absl::StatusOr<client::ReportFormat> format =
      client::ParseReportFormat(absl::GetFlag(FLAGS_format));
  if (!format.ok()) return Fail(absl::StrCat("load: ", format.status().message()));

  client::LoadOptions options;
  options.concurrency = absl::GetFlag(FLAGS_concurrency);
  const absl::Duration duration = absl::GetFlag(FLAGS_duration);
  const int64_t requests_flag = absl::GetFlag(FLAGS_requests);
  // As ghz: -z without -n runs for the duration whatever the count.
  options.requests = requests_flag >= 0 ? requests_flag
                     : duration > absl::ZeroDuration() ? 0
                                                       : 200;
  options.duration_seconds = duration > absl::ZeroDuration() ? absl::ToDoubleSeconds(duration)
                                                             : absl::GetFlag(FLAGS_max_seconds);
  options.rps = absl::GetFlag(FLAGS_rps);
  options.connections = absl::GetFlag(FLAGS_connections);
  options.timeout_seconds = absl::GetFlag(FLAGS_timeout);
  options.max_errors = absl::GetFlag(FLAGS_max_errors);
  options.give_up_seconds = absl::ToDoubleSeconds(absl::GetFlag(FLAGS_give_up));
  options.progress = isatty(fileno(stderr)) != 0;
  if (absl::Status s = ParseLoadWarmup(absl::GetFlag(FLAGS_warmup), options); !s.ok()) {
    return Fail(absl::StrCat("load: ", s.message()));
  }
  if (options.concurrency < 1 || options.connections < 1 || options.rps < 0 ||
      options.duration_seconds < 0) {
    return Fail("load: --concurrency and --connections must be >= 1, --rps and --duration >= 0");
  }
  std::vector<int> levels;
  for (const std::string& level : absl::GetFlag(FLAGS_sweep)) {
    int value = 0;
    if (!absl::SimpleAtoi(level, &value) || value < 1) {
      return Fail(absl::StrCat("load: --sweep: '", level, "' is not a concurrency >= 1"));
    }
    levels.push_back(value);
  }
  // Distinct channel arguments per connection: gRPC would otherwise share
  // one subchannel (one TCP connection) among equal channels.
  client::ChannelFactory channels = [](int index) {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    args.SetInt("rgfx.load_connection", index);
    return Channel(args);
  };
  if (levels.empty()) {
    const client::LoadResult result = client::RunLoad(channels, requests, options);
    std::fputs(client::FormatRun(result, *format).c_str(), stdout);
    return client::LoadExitCode({result});
  }
  std::vector<client::LoadResult> runs;
  for (int level : levels) {
    options.concurrency = level;
    runs.push_back(client::RunLoad(channels, requests, options));
    if (!runs.back().stopped.empty()) break;  // the server is gone: the next level would be too
  }
  std::fputs(client::FormatSweep(runs, *format).c_str(), stdout);
  return client::LoadExitCode(runs);
}

int Bench() {
  client::BenchOptions options;
  options.out_dir = absl::GetFlag(FLAGS_out);
  options.width = static_cast<uint32_t>(absl::GetFlag(FLAGS_width));
  options.height = static_cast<uint32_t>(absl::GetFlag(FLAGS_height));
  options.radius = absl::GetFlag(FLAGS_radius);
  options.sweep_radii.clear();
  for (const std::string& r : absl::GetFlag(FLAGS_radii)) {
    int value = 0;
    if (!absl::SimpleAtoi(r, &value)) return Fail(absl::StrCat("--radii: '", r, "' is not a number"));
    options.sweep_radii.push_back(value);
  }
  options.runs = absl::GetFlag(FLAGS_runs);
  if (const std::string w = absl::GetFlag(FLAGS_warmup); !w.empty() &&
      !absl::SimpleAtoi(w, &options.warmup)) {
    return Fail(absl::StrCat("bench: --warmup ", w, ": a count of requests"));
  }
  options.sweep_runs = absl::GetFlag(FLAGS_sweep_runs);
  options.branch_table = absl::GetFlag(FLAGS_branch_table);
  options.gpu_repeats = absl::GetFlag(FLAGS_gpu_repeats);
  if (!absl::GetFlag(FLAGS_working_format).empty()) {
    options.working_format = absl::AsciiStrToLower(absl::GetFlag(FLAGS_working_format));
  }
  auto stub = v1::PostProcess::NewStub(Channel());
  return client::RunBench(*stub, options);
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "rgfx process --server ADDR --graph FILE.json [--set pass.param=value] IN.png... -o OUT\n"
      "rgfx passes | info | health [--server ADDR] [--json]\n"
      "rgfx bench [--server ADDR] [--out DIR] [--width W] [--height H] [--radius R] [--runs N]\n"
      "rgfx load --graph FILE.json (IN.png... | --images DIR) [-c N] [-n N] [-z 20s] [--rps R]\n"
      "          [--connections N] [--warmup N|2s] [--sweep 1,4,16,64] [--format text|json|csv]\n"
      "TLS, any subcommand: --tls_ca CA.pem [--tls_cert C.pem --tls_key K.pem] "
      "[--tls_server_name NAME]");
  // ghz's short names for load: -c, -n, -z (absl flags are long names only).
  std::vector<std::string> spelled;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    for (const auto& [from, to] : {std::pair<std::string, std::string>{"-c", "--concurrency"},
                                   {"-n", "--requests"},
                                   {"-z", "--duration"}}) {
      if (arg == from || absl::StartsWith(arg, from + "=")) arg = to + arg.substr(from.size());
    }
    spelled.push_back(std::move(arg));
  }
  std::vector<char*> spelled_argv;
  for (std::string& arg : spelled) spelled_argv.push_back(arg.data());
  std::vector<char*> args =
      absl::ParseCommandLine(static_cast<int>(spelled_argv.size()), spelled_argv.data());
  if (args.size() < 2) return Fail("usage: rgfx process|passes|info|health|bench|load ... (--help)");
  const std::string command = args[1];
  std::vector<std::string> rest(args.begin() + 2, args.end());
  if (command == "process") return Process(rest);
  if (command == "passes") return Passes();
  if (command == "info") return Info();
  if (command == "health") return Health();
  if (command == "bench") return Bench();
  if (command == "load") return Load(rest);
  return Fail(absl::StrCat("unknown command '", command, "'"));
}
