// `rgfx load`'s report of one run or of a concurrency sweep, as text (for a
// person), JSON (one object; a sweep: {"runs": [...]}) or CSV (a header and
// one row per run, so runs from several invocations concatenate).
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "client/load.h"

namespace rgfx::client {

enum class ReportFormat { kText, kJson, kCsv };

absl::StatusOr<ReportFormat> ParseReportFormat(const std::string& name);

// One run in full (text), or as one JSON object / CSV header and row.
std::string FormatRun(const LoadResult& run, ReportFormat format);
// Several runs (--sweep): text prints a table with a row per run.
std::string FormatSweep(const std::vector<LoadResult>& runs, ReportFormat format);

// 0 when every counted answer was OK and no run stopped early, else 1.
int LoadExitCode(const std::vector<LoadResult>& runs);

}  // namespace rgfx::client
