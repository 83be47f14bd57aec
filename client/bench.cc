#include "client/bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <random>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/bench_report.h"

namespace rgfx::client {
namespace {

namespace v1 = ::rgfx::v1;

double Median(std::vector<uint64_t> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string Us(double ns) { return std::isnan(ns) ? "n/a" : absl::StrFormat("%.1f", ns / 1000); }

// One timed configuration: GPU ns of a pass and of each of its steps.
struct PassSamples {
  std::string variant;
  std::vector<uint64_t> total;
  std::map<std::string, std::vector<uint64_t>> steps;
  std::vector<std::string> step_order;
};

class Bench {
 public:
  Bench(v1::PostProcess::Stub& stub, const BenchOptions& options) : stub_(stub), o_(options) {
    std::mt19937 rng(7);
    for (int i = 0; i < std::max(1, o_.rotate); ++i) {
      std::string pixels(size_t{o_.width} * o_.height * 4, '\0');
      for (auto& c : pixels) c = static_cast<char>(rng() & 0xff);
      inputs_.push_back(std::move(pixels));
    }
  }

  v1::WorkingFormat working() const {
    return o_.working_format == "rgba32f" ? v1::WORKING_FORMAT_RGBA32F
                                          : v1::WORKING_FORMAT_RGBA16F;
  }

  v1::ProcessRequest Request(const v1::Graph& graph, int input, v1::WorkingFormat working,
                             v1::ImageEncoding out = v1::IMAGE_ENCODING_RGBA8) const {
    v1::ProcessRequest request;
    v1::Image* image = request.add_inputs();
    image->set_name("image");
    image->set_encoding(v1::IMAGE_ENCODING_RGBA8);
    image->set_width(o_.width);
    image->set_height(o_.height);
    image->set_data(inputs_[input % inputs_.size()]);
    *request.mutable_graph() = graph;
    request.mutable_options()->set_working_format(working);
    request.mutable_options()->set_gpu_repeats(static_cast<uint32_t>(o_.gpu_repeats));
    request.mutable_options()->set_output_encoding(out);
    if (out == v1::IMAGE_ENCODING_RGBA32F) {
      // Linear and premultiplied: PSNR compares what the blur computed.
      request.mutable_options()->set_output_color_space(v1::COLOR_SPACE_LINEAR);
      request.mutable_options()->set_output_alpha_mode(v1::ALPHA_MODE_PREMULTIPLIED);
    }
    return request;
  }

  absl::StatusOr<v1::ProcessResponse> Call(const v1::ProcessRequest& request) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(120));
    v1::ProcessResponse response;
    const grpc::Status status = stub_.Process(&context, request, &response);
    if (!status.ok()) {
      return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                          status.error_message());
    }
    return response;
  }

  // Runs `graph` warmup+runs times and collects the timings of `pass`.
  absl::StatusOr<PassSamples> Time(const v1::Graph& graph, const std::string& pass, int runs,
                                   v1::WorkingFormat working) {
    PassSamples samples;
    for (int i = 0; i < o_.warmup + runs; ++i) {
      auto response = Call(Request(graph, i, working));
      if (!response.ok()) return response.status();
      if (i < o_.warmup) continue;
      for (const auto& row : response->passes()) {
        if (row.pass() != pass) continue;
        if (!row.has_gpu_ns()) return absl::UnavailableError("the device has no timestamps");
        samples.variant = row.variant();
        samples.total.push_back(row.gpu_ns());
        for (const auto& step : row.steps()) {
          if (!samples.steps.count(step.label())) samples.step_order.push_back(step.label());
          samples.steps[step.label()].push_back(step.gpu_ns());
        }
      }
    }
    return samples;
  }

  // Output of `graph` on input 0 as linear premultiplied RGBA32F.
  absl::StatusOr<std::vector<float>> Pixels(const v1::Graph& graph) {
    auto response = Call(Request(graph, 0, working(), v1::IMAGE_ENCODING_RGBA32F));
    if (!response.ok()) return response.status();
    const std::string& data = response->outputs(0).data();
    std::vector<float> pixels(data.size() / 4);
    std::memcpy(pixels.data(), data.data(), pixels.size() * 4);
    return pixels;
  }

  v1::Graph BlurGraph(const std::string& variant, int radius) const {
    v1::Graph graph;
    v1::Pass* pass = graph.add_passes();
    pass->set_name("blur");
    pass->add_inputs("image");
    pass->add_outputs("soft");
    auto* params = pass->mutable_gaussian_blur();
    params->set_radius(radius);
    params->set_sigma(radius / 2.0f);
    v1::BlurVariant value = v1::BLUR_VARIANT_UNSPECIFIED;
    std::string upper = variant;
    for (auto& c : upper) c = static_cast<char>(std::toupper(c));
    // Variants come from the server's catalog; one this client's proto does
    // not know is sent as an invalid number so the server refuses it by name.
    if (!v1::BlurVariant_Parse("BLUR_VARIANT_" + upper, &value)) value = v1::BlurVariant(999);
    params->set_variant(value);
    graph.add_outputs("soft");
    return graph;
  }

  // The copy floor: a chain of copies in RGBA32F (16-byte accesses); bytes
  // read plus written per copy over its median GPU time.
  absl::StatusOr<double> CopyBandwidth() {
    v1::Graph graph;
    std::string previous = "image";
    for (int i = 0; i < 6; ++i) {
      v1::Pass* pass = graph.add_passes();
      pass->set_name(absl::StrCat("copy", i));
      pass->add_inputs(previous);
      previous = absl::StrCat("c", i);
      pass->add_outputs(previous);
      pass->mutable_copy();
    }
    graph.add_outputs(previous);
    std::vector<uint64_t> all;
    for (int i = 0; i < 6; ++i) {
      auto samples = Time(graph, absl::StrCat("copy", i), std::max(3, o_.runs / 3),
                          v1::WORKING_FORMAT_RGBA32F);
      if (!samples.ok()) return samples.status();
      all.insert(all.end(), samples->total.begin(), samples->total.end());
    }
    return 2.0 * o_.width * o_.height * 16 / Median(all);  // bytes per ns = GB/s
  }

  std::vector<std::string> Variants() {
    grpc::ClientContext context;
    v1::ListPassesResponse catalog;
    std::vector<std::string> variants;
    if (!stub_.ListPasses(&context, v1::ListPassesRequest(), &catalog).ok()) return variants;
    for (const auto& pass : catalog.passes()) {
      if (pass.name() != "gaussian_blur") continue;
      for (const auto& v : pass.variants()) {
        if (v != "auto") variants.push_back(v);
      }
    }
    // The published lineage first, in its order; then whatever else exists.
    static const char* kOrder[] = {"naive",  "line_cache", "decimated", "symmetric", "tuned",
                                   "tiled_halo", "exact",  "fast",      "large_radius"};
    std::vector<std::string> ordered;
    for (const char* name : kOrder) {
      if (std::find(variants.begin(), variants.end(), name) != variants.end()) {
        ordered.push_back(name);
      }
    }
    for (const auto& v : variants) {
      if (std::find(ordered.begin(), ordered.end(), v) == ordered.end()) ordered.push_back(v);
    }
    return ordered;
  }

  int Run();

 private:
  absl::Status Lineage(double bandwidth);
  absl::Status Sweep();
  absl::Status Branches();
  void Emit(const Table& table, const std::string& csv_name);

  v1::PostProcess::Stub& stub_;
  const BenchOptions o_;
  std::vector<std::string> inputs_;
  std::vector<std::string> variants_;
};

double Psnr(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size() || a.empty()) return NAN;
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
  const double mse = sum / a.size();
  return mse == 0 ? INFINITY : 10 * std::log10(1.0 / mse);
}

void Bench::Emit(const Table& table, const std::string& csv_name) {
  std::printf("\n%s", FormatTable(table).c_str());
  if (o_.out_dir.empty()) return;
  const absl::Status status = WriteCsv(table, o_.out_dir + "/" + csv_name);
  if (!status.ok()) std::fprintf(stderr, "rgfx bench: %s\n", status.ToString().c_str());
}

absl::Status Bench::Lineage(double bandwidth_before) {
  auto exact = Pixels(BlurGraph("exact", o_.radius));
  if (!exact.ok()) return exact.status();
  struct Row {
    std::string variant;
    std::string refused;  // why the server refused it, or empty
    double h = NAN, v = NAN, total = NAN, psnr = NAN;
  };
  std::vector<Row> rows;
  for (const auto& variant : variants_) {
    Row row{variant};
    auto samples = Time(BlurGraph(variant, o_.radius), "blur", o_.runs, working());
    if (!samples.ok()) {
      row.refused = std::string(samples.status().message());
    } else {
      auto pixels = Pixels(BlurGraph(variant, o_.radius));
      row.psnr = pixels.ok() ? Psnr(*pixels, *exact) : NAN;
      row.h = Median(samples->steps["horizontal"]);
      row.v = Median(samples->steps["vertical"]);
      row.total = Median(samples->total);
    }
    rows.push_back(row);
  }
  // The floor again, now that the blurs have kept the GPU busy: a GPU that
  // was idle before the first measurement may not have raised its clocks.
  // The larger bandwidth is the floor.
  auto bandwidth_after = CopyBandwidth();
  if (!bandwidth_after.ok()) return bandwidth_after.status();
  const double bandwidth = std::max(bandwidth_before, *bandwidth_after);
  std::printf("copy bandwidth after the lineage: %.1f GB/s; the floor uses %.1f GB/s\n",
              *bandwidth_after, bandwidth);
  const double bpp = o_.working_format == "rgba32f" ? 16 : 8;
  const double step_floor_ns = 2.0 * o_.width * o_.height * bpp / bandwidth;

  Table table{absl::StrFormat("Blur lineage: %ux%u, radius %d, sigma %g, working %s; median GPU "
                              "us of %d requests x %d GPU repeats after %d warm-up",
                              o_.width, o_.height, o_.radius, o_.radius / 2.0, o_.working_format,
                              o_.runs, o_.gpu_repeats, o_.warmup),
              {"variant", "horizontal", "vertical", "total", "vs previous", "x floor",
               "PSNR vs exact dB"},
              {}};
  BarChart chart{table.title, "GPU microseconds (horizontal + vertical)",
                 {"horizontal", "vertical"}, {}, {}, 2 * step_floor_ns / 1000};
  double previous = NAN;
  for (const Row& row : rows) {
    if (!row.refused.empty()) {
      table.rows.push_back({row.variant, "refused: " + row.refused});
      continue;
    }
    table.rows.push_back(
        {row.variant, Us(row.h), Us(row.v), Us(row.total),
         std::isnan(previous) ? "" : absl::StrFormat("%.2fx", previous / row.total),
         absl::StrFormat("%.1f", row.total / (2 * step_floor_ns)),
         std::isinf(row.psnr) ? "exact" : absl::StrFormat("%.1f", row.psnr)});
    chart.labels.push_back(row.variant);
    chart.segments.push_back({row.h / 1000, row.v / 1000});
    previous = row.total;
  }
  table.rows.push_back({"copy floor", Us(step_floor_ns), Us(step_floor_ns),
                        Us(2 * step_floor_ns), "", "1.0",
                        absl::StrFormat("(%.0f GB/s)", bandwidth)});
  Emit(table, "lineage.csv");
  if (!o_.out_dir.empty()) return WriteFile(o_.out_dir + "/lineage.svg", RenderSvg(chart));
  return absl::OkStatus();
}

absl::Status Bench::Sweep() {
  Table table{absl::StrFormat("Radius sweep: %ux%u, sigma = radius/2, working %s; median total "
                              "GPU us of %d runs",
                              o_.width, o_.height, o_.working_format, o_.sweep_runs),
              {"variant"},
              {}};
  for (int r : o_.sweep_radii) table.columns.push_back(absl::StrCat("r=", r));
  for (const auto& variant : variants_) {
    std::vector<std::string> row{variant};
    for (int r : o_.sweep_radii) {
      auto samples = Time(BlurGraph(variant, r), "blur", o_.sweep_runs, working());
      row.push_back(samples.ok() ? Us(Median(samples->total)) : "refused");
    }
    table.rows.push_back(row);
  }
  Emit(table, "sweep.csv");
  return absl::OkStatus();
}

absl::Status Bench::Branches() {
  struct Mode {
    const char* name;
    v1::BranchMode mode;
  };
  const Mode modes[] = {{"static (specialization constant)", v1::BRANCH_MODE_SPECIALIZATION},
                        {"uniform (push constant)", v1::BRANCH_MODE_UNIFORM},
                        {"divergent (per thread)", v1::BRANCH_MODE_DIVERGENT}};
  struct Column {
    const char* name;
    float slow_fraction;
    bool flatten;
  };
  const Column columns[] = {{"fast", 0.0f, false}, {"slow", 1.0f, false},
                            {"flattened, fast", 0.0f, true}, {"half slow", 0.5f, false}};
  Table table{absl::StrFormat("Branch lab: %ux%u, median GPU us of %d runs", o_.width, o_.height,
                              o_.runs),
              {"decided"},
              {}};
  for (const auto& c : columns) table.columns.push_back(c.name);
  for (const auto& m : modes) {
    std::vector<std::string> row{m.name};
    for (const auto& c : columns) {
      v1::Graph graph;
      v1::Pass* pass = graph.add_passes();
      pass->set_name("lab");
      pass->add_inputs("image");
      pass->add_outputs("out");
      auto* params = pass->mutable_branch_lab();
      params->set_mode(m.mode);
      params->set_flatten(c.flatten);
      params->set_slow_fraction(c.slow_fraction);
      graph.add_outputs("out");
      auto samples = Time(graph, "lab", o_.runs, working());
      row.push_back(samples.ok() ? Us(Median(samples->total))
                                 : "refused: " + std::string(samples.status().message()));
    }
    table.rows.push_back(row);
  }
  Emit(table, "branch.csv");
  return absl::OkStatus();
}

int Bench::Run() {
  if (!o_.out_dir.empty()) std::filesystem::create_directories(o_.out_dir);
  grpc::ClientContext context;
  v1::DeviceInfo device;
  const grpc::Status info = stub_.GetDeviceInfo(&context, v1::GetDeviceInfoRequest(), &device);
  if (!info.ok()) {
    std::fprintf(stderr, "rgfx bench: GetDeviceInfo: %s\n", info.error_message().c_str());
    return 1;
  }
  std::printf("device: %s (%s), driver %s, Vulkan %s\n", device.name().c_str(),
              device.type().c_str(), device.driver().c_str(), device.api_version().c_str());
  variants_ = Variants();
  auto bandwidth = CopyBandwidth();
  if (!bandwidth.ok()) {
    std::fprintf(stderr, "rgfx bench: copy floor: %s\n", bandwidth.status().ToString().c_str());
    return 1;
  }
  std::printf("copy bandwidth (compute shader copy, RGBA32F %ux%u, read+write): %.1f GB/s "
              "before the lineage\n",
              o_.width, o_.height, *bandwidth);
  for (const absl::Status& status :
       {Lineage(*bandwidth), Sweep(), o_.branch_table ? Branches() : absl::OkStatus()}) {
    if (!status.ok()) {
      std::fprintf(stderr, "rgfx bench: %s\n", status.ToString().c_str());
      return 1;
    }
  }
  if (!o_.out_dir.empty()) std::printf("\nwrote CSV and SVG to %s\n", o_.out_dir.c_str());
  return 0;
}

}  // namespace

int RunBench(v1::PostProcess::Stub& stub, const BenchOptions& options) {
  return Bench(stub, options).Run();
}

}  // namespace rgfx::client
