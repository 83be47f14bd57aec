// rgfx-server: flags, engine setup, serve until SIGTERM/SIGINT, drain, exit 0.
#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "graph/image_format.h"
#include "service/log.h"
#include "service/malloc_arenas.h"
#include "service/memory_budget.h"
#include "service/server.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50051",
          "address:port to serve on (port 0: any free port); loopback by default, "
          "0.0.0.0:50051 for every interface (containers), unix:PATH for a Unix socket "
          "(clients on the same machine)");
ABSL_FLAG(std::string, metrics_listen, "127.0.0.1:9464",
          "address:port of the Prometheus GET /metrics endpoint (port 0: any free port; "
          "empty: off)");
ABSL_FLAG(bool, reflection, false, "gRPC server reflection (for grpcurl without .proto files)");
ABSL_FLAG(std::string, tls_cert, "",
          "PEM certificate chain of the server: TLS (with --tls_key; neither: plaintext)");
ABSL_FLAG(std::string, tls_key, "", "PEM private key of --tls_cert (unencrypted)");
ABSL_FLAG(std::string, tls_client_ca, "",
          "PEM CA certificates: mutual TLS, every client must present a certificate they signed");
ABSL_FLAG(int, keepalive_time_s, 60,
          "ping a connection idle this long; no answer within --keepalive_timeout_s closes it");
ABSL_FLAG(int, keepalive_timeout_s, 20, "how long a keepalive ping may go unanswered");
ABSL_FLAG(bool, keepalive_permit_without_calls, true,
          "accept clients' keepalive pings on connections with no call (at most one per "
          "--min_client_ping_interval_s; more often: GOAWAY too_many_pings)");
ABSL_FLAG(int, min_client_ping_interval_s, 10, "shortest interval between a client's pings");
ABSL_FLAG(int, max_connection_idle_s, 600,
          "close a connection with no call for this long (0: never)");
ABSL_FLAG(int, max_connection_age_s, 0,
          "close every connection after this long so clients reconnect and round_robin "
          "rebalances (0: never); calls in flight get --max_connection_age_grace_s");
ABSL_FLAG(int, max_connection_age_grace_s, 30, "grace of calls on a connection past its age");
ABSL_FLAG(int, max_concurrent_streams, 256, "calls at once per connection (0: gRPC's default)");
ABSL_FLAG(uint64_t, grpc_memory_mb, 0,
          "memory gRPC's own buffers may take (its ResourceQuota; 0 = a quarter of the "
          "physical memory)");
ABSL_FLAG(int, grpc_max_threads, 0, "most threads gRPC may use (0: gRPC's default)");
ABSL_FLAG(int, max_stream_in_flight, 4,
          "ProcessStream: requests of one stream processed or waiting to be written at once; "
          "no more is read from it until one is written (bounds a client that never reads)");
ABSL_FLAG(std::string, device, "",
          "Vulkan device: index or name substring; empty = first discrete GPU, else "
          "integrated, else the CPU device (lavapipe)");
ABSL_FLAG(std::string, devices, "",
          "several devices, one engine each, requests to the least loaded: 'all' (every GPU) or "
          "a list of indices / name substrings ('0,1'); empty = the one --device chooses");
ABSL_FLAG(bool, matrix_units, true,
          "use the GPU's matrix units (VK_NV_cooperative_matrix) where present: gaussian_blur "
          "variant fast in RGBA16F runs on them; false: every pass on the ordinary paths");
ABSL_FLAG(std::string, gpu_png_rows, "auto",
          "PNG outputs: 'on': the GPU filters the scanlines (every row judged like the fast "
          "encoder's adaptive filter) and the CPU only deflates them (needs 8-bit storage "
          "buffers); 'off': the CPU filters (judging every 16th row); 'auto': on, except on a "
          "CPU device such as lavapipe, where the shader runs on the same cores and is slower");
ABSL_FLAG(std::string, working_format, "RGBA16F",
          "default internal precision: RGBA16F or RGBA32F (requests may override)");
ABSL_FLAG(uint64_t, max_pixels, 64ull << 20, "most pixels (width*height) per image and resource");
ABSL_FLAG(uint64_t, max_message_bytes, 256ull << 20, "largest gRPC message accepted or sent, bytes");
ABSL_FLAG(int, max_passes, 64, "most passes per graph");
ABSL_FLAG(int, max_gpu_repeats, 100,
          "most repetitions of a graph's GPU work one request may ask for (Options.gpu_repeats)");
ABSL_FLAG(int, max_queued, 64, "requests waiting for a slot; beyond: RESOURCE_EXHAUSTED");
ABSL_FLAG(int, max_in_flight, 0,
          "requests processed at once (bounds memory: each holds its decoded inputs and "
          "outputs); 0 = twice the CPU threads, at least 8");
ABSL_FLAG(int, workers, 3,
          "GPU workers (executors with their own transient memory): submissions in flight on "
          "the GPU at once");
ABSL_FLAG(int, max_batch, 8,
          "most queued requests with the same graph and sizes run in one GPU submission");
ABSL_FLAG(int, batch_delay_us, 500,
          "how long a GPU worker waits for more requests of the same graph to fill a batch "
          "while others are being decoded (0: never waits)");
ABSL_FLAG(uint64_t, host_memory_budget_mb, 0,
          "host memory all requests in flight may hold for their pixels; over it: "
          "RESOURCE_EXHAUSTED before anything is allocated (0 = half the physical memory)");
ABSL_FLAG(uint64_t, gpu_memory_budget_mb, 0,
          "GPU memory for transient buffers, shared by the workers; a graph needing more than "
          "one worker's share is refused (0 = 3/4 of the largest device-local heap)");
ABSL_FLAG(int, memory_idle_release_s, 60,
          "staging and transient GPU memory unused for this long is given back (0: never)");
ABSL_FLAG(int, malloc_arenas, 2,
          "most glibc malloc arenas (0: glibc's default of 8 per core, whose resident memory "
          "creeps up under sustained load; see docs/RELIABILITY.md)");
ABSL_FLAG(int, png_encode_threads, 0,
          "threads one PNG encode is split over; 0 = by load (the cores shared among the "
          "encodes in progress, 1 to 8)");
ABSL_FLAG(std::string, png_deflate, "auto",
          "how PNG level 1 (the default) deflates: auto (per piece, the smaller of our runs "
          "coder and ISA-L level 1 on a sample), runs, or isal");
ABSL_FLAG(int, cpu_threads, 0, "decode/encode threads; 0 = one per core");
ABSL_FLAG(bool, validation, false, "Vulkan validation layer (with synchronization validation)");
ABSL_FLAG(std::string, log_format, "text", "text or json (one object per line)");
ABSL_FLAG(std::string, pipeline_cache, "", "file to load the Vulkan pipeline cache from and save it to");
ABSL_FLAG(std::string, auto_calibration, "missing",
          "measure the blur variants on the device before serving, so that variant auto "
          "chooses from this device's times: off, missing (GPUs the built-in table lacks) or "
          "always (every device, its built-in rows replaced)");
ABSL_FLAG(std::string, auto_calibration_file, "",
          "file to keep the start-up measurements in: a later start on the same device, "
          "driver, build and grid reads them instead of measuring");
ABSL_FLAG(std::string, auto_calibration_formats, "rgba16f,rgba32f",
          "working formats --auto_calibration measures");
ABSL_FLAG(std::string, auto_calibration_sizes, "512x512,1920x1080,3840x2160",
          "image sizes --auto_calibration measures (WxH,...)");
ABSL_FLAG(std::string, auto_calibration_radii, "1,2,4,8,16,32,64,128,256,512,1024",
          "radii --auto_calibration measures");
ABSL_FLAG(int, grace_seconds, 10, "on SIGTERM/SIGINT: how long work in flight may finish");

namespace {

using rgfx::service::Field;
using rgfx::service::ServerLog;

int Fail(const std::string& message) {
  ServerLog().Error(message);
  return 1;
}

// A flag that names one of a few choices: its value, or nothing (after
// logging "--flag must be a, b or c, not 'x'") when it names none of them.
template <typename T>
std::optional<T> ParseChoice(std::string_view flag, const std::string& value,
                             std::initializer_list<std::pair<std::string_view, T>> choices) {
  std::string names;
  size_t k = 0;
  for (const auto& [name, choice] : choices) {
    if (name == value) return choice;
    names += k == 0 ? "" : k + 1 == choices.size() ? " or " : ", ";
    names += name;
    ++k;
  }
  Fail("--" + std::string(flag) + " must be " + names + ", not '" + value + "'");
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("rgfx-server: GPU post-processing over gRPC (rgfx.v1.PostProcess)");
  absl::ParseCommandLine(argc, argv);
  // Before any other thread exists (arenas made earlier would stay). A C
  // library that ignores the setting (a sanitizer's allocator, musl) only
  // costs the memory the cap saves: warn, below, and serve.
  const int malloc_arenas = absl::GetFlag(FLAGS_malloc_arenas);
  if (malloc_arenas < 0) return Fail("--malloc_arenas must be >= 0 (0: the C library's default)");
  absl::Status arenas_capped = absl::OkStatus();
  if (malloc_arenas > 0) arenas_capped = rgfx::service::LimitMallocArenas(malloc_arenas);

  const std::string log_format = absl::GetFlag(FLAGS_log_format);
  if (log_format != "text" && log_format != "json") return Fail("--log_format must be text or json");
  ServerLog().set_format(log_format == "json" ? rgfx::service::LogFormat::kJson
                                              : rgfx::service::LogFormat::kText);
  if (!arenas_capped.ok()) {
    ServerLog().Warning("malloc arenas not capped; resident memory may creep up under load",
                        {Field("malloc_arenas", int64_t{malloc_arenas}),
                         Field("reason", std::string(arenas_capped.message()))});
  }

  // Signals are taken by sigwait below: block them before any thread starts
  // so every thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  rgfx::service::ServerOptions options;
  options.listen_address = absl::GetFlag(FLAGS_listen);
  options.metrics_listen = absl::GetFlag(FLAGS_metrics_listen);
  options.engine.validation = absl::GetFlag(FLAGS_validation);
  options.engine.device = absl::GetFlag(FLAGS_device);
  options.engine.matrix_units = absl::GetFlag(FLAGS_matrix_units);
  options.devices = absl::GetFlag(FLAGS_devices);
  options.engine.pipeline_cache_file = absl::GetFlag(FLAGS_pipeline_cache);
  options.engine.workers = absl::GetFlag(FLAGS_workers);
  const std::optional<rgfx::graph::PixelFormat> working =
      rgfx::graph::ParsePixelFormat(absl::GetFlag(FLAGS_working_format));
  if (!working || !rgfx::graph::IsWorkingFormat(*working)) {
    return Fail("--working_format must be RGBA16F or RGBA32F");
  }
  options.config.limits.default_working_format = *working;
  options.config.limits.max_pixels = absl::GetFlag(FLAGS_max_pixels);
  options.config.limits.max_passes = absl::GetFlag(FLAGS_max_passes);
  options.config.limits.max_gpu_repeats = absl::GetFlag(FLAGS_max_gpu_repeats);
  options.config.max_message_bytes = absl::GetFlag(FLAGS_max_message_bytes);
  options.config.max_queued = absl::GetFlag(FLAGS_max_queued);
  options.config.max_in_flight = absl::GetFlag(FLAGS_max_in_flight);
  options.config.max_batch = absl::GetFlag(FLAGS_max_batch);
  options.config.batch_delay = absl::Microseconds(absl::GetFlag(FLAGS_batch_delay_us));
  options.config.png_encode_threads = absl::GetFlag(FLAGS_png_encode_threads);
  if (options.config.png_encode_threads < 0) {
    return Fail("--png_encode_threads must be 0 (by load) or more");
  }
  using rgfx::service::DeflateMethod;
  using rgfx::service::GpuPngRows;
  const std::optional<DeflateMethod> png_deflate =
      ParseChoice<DeflateMethod>("png_deflate", absl::GetFlag(FLAGS_png_deflate),
                                 {{"auto", DeflateMethod::kSmallerOnSample},
                                  {"runs", DeflateMethod::kRuns},
                                  {"isal", DeflateMethod::kIsal}});
  if (!png_deflate) return 1;
  options.config.png_level1_deflate = *png_deflate;
  const std::optional<GpuPngRows> png_rows = ParseChoice<GpuPngRows>(
      "gpu_png_rows", absl::GetFlag(FLAGS_gpu_png_rows),
      {{"auto", GpuPngRows::kAuto}, {"on", GpuPngRows::kOn}, {"off", GpuPngRows::kOff}});
  if (!png_rows) return 1;
  options.config.gpu_png_rows = *png_rows;
  options.engine.memory_idle_release = absl::Seconds(absl::GetFlag(FLAGS_memory_idle_release_s));
  options.engine.host_memory_budget = absl::GetFlag(FLAGS_host_memory_budget_mb) << 20;
  options.engine.gpu_memory_budget = absl::GetFlag(FLAGS_gpu_memory_budget_mb) << 20;
  options.engine.limits.max_pixels = options.config.limits.max_pixels;
  options.engine.limits.max_passes = options.config.limits.max_passes;
  options.cpu_threads = absl::GetFlag(FLAGS_cpu_threads);
  options.reflection = absl::GetFlag(FLAGS_reflection);
  options.tls.cert_file = absl::GetFlag(FLAGS_tls_cert);
  options.tls.key_file = absl::GetFlag(FLAGS_tls_key);
  options.tls.client_ca_file = absl::GetFlag(FLAGS_tls_client_ca);
  options.max_stream_in_flight = absl::GetFlag(FLAGS_max_stream_in_flight);
  {
    rgfx::service::ConnectionOptions& c = options.connections;
    const int values[] = {absl::GetFlag(FLAGS_keepalive_time_s),
                           absl::GetFlag(FLAGS_keepalive_timeout_s),
                           absl::GetFlag(FLAGS_min_client_ping_interval_s),
                           absl::GetFlag(FLAGS_max_connection_idle_s),
                           absl::GetFlag(FLAGS_max_connection_age_s),
                           absl::GetFlag(FLAGS_max_connection_age_grace_s),
                           absl::GetFlag(FLAGS_max_concurrent_streams),
                           absl::GetFlag(FLAGS_grpc_max_threads)};
    if (*std::min_element(std::begin(values), std::end(values)) < 0 ||
        absl::GetFlag(FLAGS_keepalive_time_s) < 1 || absl::GetFlag(FLAGS_keepalive_timeout_s) < 1) {
      return Fail("--keepalive_time_s and --keepalive_timeout_s must be >= 1; the other "
                  "connection flags (--max_connection_*, --min_client_ping_interval_s, "
                  "--max_concurrent_streams, --grpc_max_threads) >= 0");
    }
    c.keepalive_time = absl::Seconds(absl::GetFlag(FLAGS_keepalive_time_s));
    c.keepalive_timeout = absl::Seconds(absl::GetFlag(FLAGS_keepalive_timeout_s));
    c.keepalive_permit_without_calls = absl::GetFlag(FLAGS_keepalive_permit_without_calls);
    c.min_client_ping_interval = absl::Seconds(absl::GetFlag(FLAGS_min_client_ping_interval_s));
    c.max_connection_idle = absl::Seconds(absl::GetFlag(FLAGS_max_connection_idle_s));
    c.max_connection_age = absl::Seconds(absl::GetFlag(FLAGS_max_connection_age_s));
    c.max_connection_age_grace = absl::Seconds(absl::GetFlag(FLAGS_max_connection_age_grace_s));
    c.max_concurrent_streams = absl::GetFlag(FLAGS_max_concurrent_streams);
    c.max_threads = absl::GetFlag(FLAGS_grpc_max_threads);
    c.memory_quota_bytes = absl::GetFlag(FLAGS_grpc_memory_mb) << 20;
    if (c.memory_quota_bytes == 0) {
      c.memory_quota_bytes = rgfx::service::DefaultHostMemoryBudget() / 2;
    }
  }
  if (options.config.max_in_flight == 0) {
    const int threads = options.cpu_threads > 0
                            ? options.cpu_threads
                            : static_cast<int>(std::thread::hardware_concurrency());
    options.config.max_in_flight = std::max(8, 2 * threads);
  }
  if (options.config.max_batch < 1 || absl::GetFlag(FLAGS_batch_delay_us) < 0 ||
      absl::GetFlag(FLAGS_memory_idle_release_s) < 0) {
    return Fail("--max_batch must be >= 1, --batch_delay_us and --memory_idle_release_s >= 0");
  }
  if (options.engine.workers < 1 || options.config.max_in_flight < 1 ||
      options.config.max_queued < 0 || options.config.limits.max_passes < 1 ||
      options.config.limits.max_pixels < 1) {
    return Fail("--workers, --max_in_flight, --max_passes and --max_pixels must be >= 1, "
                "--max_queued >= 0");
  }

  using rgfx::service::AutoCalibrationMode;
  const std::optional<AutoCalibrationMode> calibration = ParseChoice<AutoCalibrationMode>(
      "auto_calibration", absl::GetFlag(FLAGS_auto_calibration),
      {{"off", AutoCalibrationMode::kOff},
       {"missing", AutoCalibrationMode::kMissing},
       {"always", AutoCalibrationMode::kAlways}});
  if (!calibration) return 1;
  options.auto_calibration.mode = *calibration;
  options.auto_calibration.file = absl::GetFlag(FLAGS_auto_calibration_file);
  if (absl::Status s = rgfx::service::ParseCalibrationGrid(
          absl::GetFlag(FLAGS_auto_calibration_formats),
          absl::GetFlag(FLAGS_auto_calibration_sizes),
          absl::GetFlag(FLAGS_auto_calibration_radii), options.auto_calibration);
      !s.ok()) {
    return Fail(std::string(s.message()));
  }

  absl::StatusOr<std::unique_ptr<rgfx::service::Server>> server =
      rgfx::service::Server::Start(options);
  if (!server.ok()) {
    // The message names what is missing (a driver, a feature, a file): it is
    // the whole answer to "why did it not start", so it goes out unwrapped.
    return Fail(absl::StrCat("rgfx-server cannot start: ", server.status().message()));
  }
  ServerLog().Info("serving", {Field("address", options.listen_address),
                               Field("port", int64_t{(*server)->port()}),
                               // Not "metrics_port=": scripts read the last "port=".
                               Field("metrics", (*server)->metrics_port() > 0
                                                    ? absl::StrCat((*server)->metrics_port())
                                                    : std::string("off")),
                               Field("device", (*server)->engine().Describe()),
                               Field("workers", int64_t{options.engine.workers}),
                               Field("tls", !options.tls.enabled()             ? "off"
                                            : options.tls.client_ca_file.empty() ? "on"
                                                                                 : "mutual"),
                               Field("validation", (*server)->engine().validation_enabled()
                                                       ? "on" : "off")});

  int signal = 0;
  sigwait(&signals, &signal);
  const absl::Duration grace = absl::Seconds(absl::GetFlag(FLAGS_grace_seconds));
  ServerLog().Info("draining", {Field("signal", int64_t{signal}),
                                Field("grace_s", int64_t{absl::GetFlag(FLAGS_grace_seconds)})});
  (*server)->Shutdown(grace);
  server->reset();
  ServerLog().Info("stopped");
  return 0;
}
