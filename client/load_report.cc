#include "client/load_report.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/load_stats.h"

namespace rgfx::client {
namespace {

// Server stages in pipeline order (StageTimings), then the server's total.
constexpr const char* kStages[] = {"queue",  "decode",   "compile", "upload", "submit",
                                   "gpu",    "download", "encode",  "total"};

std::string JsonString(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppendFormat(&out, "\\u%04x", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string CsvField(std::string_view s) {
  if (s.find_first_of(",\"\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string JsonDistribution(const Distribution& d) {
  return absl::StrFormat(
      "{\"count\": %d, \"min\": %.4f, \"mean\": %.4f, \"p50\": %.4f, \"p90\": %.4f, "
      "\"p95\": %.4f, \"p99\": %.4f, \"p99_9\": %.4f, \"max\": %.4f}",
      d.count, d.min, d.mean, d.p50, d.p90, d.p95, d.p99, d.p999, d.max);
}

// "OK:98;RESOURCE_EXHAUSTED:2"
std::string CodesInline(const LoadResult& run) {
  std::vector<std::string> parts;
  for (const auto& [code, count] : run.codes) parts.push_back(absl::StrCat(code, ":", count));
  return absl::StrJoin(parts, ";");
}

std::string Json(const LoadResult& run) {
  std::string out = "{";
  absl::StrAppendFormat(&out,
                        "\"concurrency\": %d, \"connections\": %d, \"rps_target\": %g, "
                        "\"count\": %d, \"ok\": %d, \"seconds\": %.4f, \"rate\": %.3f, "
                        "\"sent\": %d, \"warmup_skipped\": %d, \"bytes_sent\": %d, "
                        "\"bytes_received\": %d, ",
                        run.concurrency, run.connections, run.rps_target, run.count(), run.ok(),
                        run.seconds, run.rate(), run.sent, run.warmup_skipped, run.bytes_sent,
                        run.bytes_received);
  absl::StrAppend(&out, "\"latency_ms\": ", JsonDistribution(Summarize(run.latency_ms)));
  std::vector<std::string> parts;
  for (const auto& [code, count] : run.codes) parts.push_back(absl::StrCat(JsonString(code), ": ", count));
  absl::StrAppend(&out, ", \"codes\": {", absl::StrJoin(parts, ", "), "}");
  parts.clear();
  for (const auto& [what, count] : run.error_messages) {
    parts.push_back(absl::StrCat(JsonString(what), ": ", count));
  }
  absl::StrAppend(&out, ", \"errors\": {", absl::StrJoin(parts, ", "), "}");
  parts.clear();
  for (const char* stage : kStages) {
    auto it = run.stages_ms.find(stage);
    if (it == run.stages_ms.end()) continue;
    parts.push_back(absl::StrCat(JsonString(stage), ": ", JsonDistribution(Summarize(it->second))));
  }
  absl::StrAppend(&out, ", \"server_stages_ms\": {", absl::StrJoin(parts, ", "), "}");
  parts.clear();
  for (const auto& [pass, ms] : run.pass_gpu_ms) {
    parts.push_back(absl::StrCat(JsonString(pass), ": ", JsonDistribution(Summarize(ms))));
  }
  absl::StrAppend(&out, ", \"pass_gpu_ms\": {", absl::StrJoin(parts, ", "), "}");
  absl::StrAppend(&out, ", \"stopped\": ", JsonString(run.stopped), "}");
  return out;
}

constexpr char kCsvHeader[] =
    "concurrency,connections,rps_target,count,ok,seconds,rate,p50_ms,p90_ms,p95_ms,p99_ms,"
    "p99_9_ms,mean_ms,max_ms,codes,server_queue_p50_ms,server_decode_p50_ms,"
    "server_upload_p50_ms,server_gpu_p50_ms,server_download_p50_ms,server_encode_p50_ms,"
    "server_total_p50_ms,server_total_p99_ms,stopped\n";

std::string CsvRow(const LoadResult& run) {
  const Distribution d = Summarize(run.latency_ms);
  auto stage = [&](const char* name, bool p99 = false) {
    auto it = run.stages_ms.find(name);
    if (it == run.stages_ms.end()) return std::string();
    const Distribution s = Summarize(it->second);
    return absl::StrFormat("%.3f", p99 ? s.p99 : s.p50);
  };
  return absl::StrFormat(
      "%d,%d,%g,%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n",
      run.concurrency, run.connections, run.rps_target, run.count(), run.ok(), run.seconds,
      run.rate(), d.p50, d.p90, d.p95, d.p99, d.p999, d.mean, d.max, CsvField(CodesInline(run)),
      stage("queue"), stage("decode"), stage("upload"), stage("gpu"), stage("download"),
      stage("encode"), stage("total"), stage("total", true), CsvField(run.stopped));
}

std::string Text(const LoadResult& run) {
  std::string out;
  const int64_t failed = run.count() - run.ok();
  absl::StrAppendFormat(&out, "%d answered OK, %d failed in %.2f s with %d concurrent callers",
                        run.ok(), failed, run.seconds, run.concurrency);
  absl::StrAppendFormat(&out, " over %d connection%s", run.connections,
                        run.connections == 1 ? "" : "s");
  if (run.rps_target > 0) absl::StrAppendFormat(&out, " at %g requests/s due", run.rps_target);
  absl::StrAppendFormat(&out, ": %.1f requests/s\n", run.rate());
  if (run.seconds > 0) {
    absl::StrAppendFormat(&out, "sent %.2f MB/s, received %.2f MB/s (serialized messages)\n",
                          run.bytes_sent / run.seconds / 1e6, run.bytes_received / run.seconds / 1e6);
  }
  if (run.warmup_skipped > 0) {
    absl::StrAppendFormat(&out, "(%d warm-up answers left out)\n", run.warmup_skipped);
  }
  const Distribution d = Summarize(run.latency_ms);
  absl::StrAppendFormat(&out,
                        "latency ms (client): p50 %.2f  p90 %.2f  p95 %.2f  p99 %.2f  "
                        "p99.9 %.2f  mean %.2f  min %.2f  max %.2f\n",
                        d.p50, d.p90, d.p95, d.p99, d.p999, d.mean, d.min, d.max);
  if (!run.latency_ms.empty()) {
    absl::StrAppend(&out, "latency histogram:\n",
                    FormatHistogram(LinearHistogram(run.latency_ms, 10), 40, "ms"));
  }
  absl::StrAppend(&out, "status codes:\n");
  for (const auto& [code, count] : run.codes) {
    absl::StrAppendFormat(&out, "  %-20s %d\n", code, count);
  }
  for (const auto& [what, count] : run.error_messages) {
    absl::StrAppendFormat(&out, "error %s (x%d)\n", what, count);
  }
  if (!run.stages_ms.empty()) {
    absl::StrAppendFormat(&out, "server stages, ms (OK answers):%14s %10s\n", "p50", "p99");
    for (const char* stage : kStages) {
      auto it = run.stages_ms.find(stage);
      if (it == run.stages_ms.end()) continue;
      const Distribution s = Summarize(it->second);
      absl::StrAppendFormat(&out, "  %-30s %10.3f %10.3f\n", stage, s.p50, s.p99);
    }
  }
  if (!run.pass_gpu_ms.empty()) {
    absl::StrAppendFormat(&out, "GPU time per pass, ms:%23s %10s\n", "p50", "p99");
    for (const auto& [pass, ms] : run.pass_gpu_ms) {
      const Distribution s = Summarize(ms);
      absl::StrAppendFormat(&out, "  %-40s %10.3f %10.3f\n", pass, s.p50, s.p99);
    }
  }
  if (!run.stopped.empty()) absl::StrAppend(&out, "rgfx load: ", run.stopped, "\n");
  return out;
}

}  // namespace

absl::StatusOr<ReportFormat> ParseReportFormat(const std::string& name) {
  const std::string lower = absl::AsciiStrToLower(name);
  if (lower == "text") return ReportFormat::kText;
  if (lower == "json") return ReportFormat::kJson;
  if (lower == "csv") return ReportFormat::kCsv;
  return absl::InvalidArgumentError(absl::StrCat("--format ", name, ": text, json or csv"));
}

std::string FormatRun(const LoadResult& run, ReportFormat format) {
  switch (format) {
    case ReportFormat::kText: return Text(run);
    case ReportFormat::kJson: return Json(run) + "\n";
    case ReportFormat::kCsv: return kCsvHeader + CsvRow(run);
  }
  return "";
}

std::string FormatSweep(const std::vector<LoadResult>& runs, ReportFormat format) {
  std::string out;
  switch (format) {
    case ReportFormat::kJson: {
      std::vector<std::string> items;
      for (const LoadResult& run : runs) items.push_back(Json(run));
      return absl::StrCat("{\"runs\": [", absl::StrJoin(items, ",\n  "), "]}\n");
    }
    case ReportFormat::kCsv:
      out = kCsvHeader;
      for (const LoadResult& run : runs) out += CsvRow(run);
      return out;
    case ReportFormat::kText:
      absl::StrAppendFormat(&out, "%8s %8s %10s %9s %9s %9s %9s %9s  %s\n", "callers", "count",
                            "req/s", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "srv p50",
                            "codes");
      for (const LoadResult& run : runs) {
        const Distribution d = Summarize(run.latency_ms);
        auto total = run.stages_ms.find("total");
        const double server =
            total == run.stages_ms.end() ? 0 : Summarize(total->second).p50;
        absl::StrAppendFormat(&out, "%8d %8d %10.1f %9.2f %9.2f %9.2f %9.2f %9.2f  %s\n",
                              run.concurrency, run.count(), run.rate(), d.p50, d.p90, d.p99,
                              d.p999, server, CodesInline(run));
        if (!run.stopped.empty()) absl::StrAppend(&out, "rgfx load: ", run.stopped, "\n");
      }
      return out;
  }
  return out;
}

int LoadExitCode(const std::vector<LoadResult>& runs) {
  for (const LoadResult& run : runs) {
    if (!run.stopped.empty() || run.ok() != run.count()) return 1;
  }
  return 0;
}

}  // namespace rgfx::client
