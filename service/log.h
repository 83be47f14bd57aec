// The server's logger: whole lines to stderr, as text or one JSON object per
// line (for log collectors), one write per line so threads do not interleave.
// The service never writes to stdout.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace rgfx::service {

enum class LogFormat { kText, kJson };

// A log line's fields in order; values are already text (numbers are written
// without quotes in JSON when `number` is set).
struct LogField {
  std::string key;
  std::string value;
  bool number = false;
};

class Logger {
 public:
  explicit Logger(LogFormat format = LogFormat::kText) : format_(format) {}
  void set_format(LogFormat format) { format_ = format; }

  void Info(absl::string_view message, const std::vector<LogField>& fields = {}) const;
  void Warning(absl::string_view message, const std::vector<LogField>& fields = {}) const;
  void Error(absl::string_view message, const std::vector<LogField>& fields = {}) const;
  // The line as it would be written (tests read it).
  std::string Format(absl::string_view level, absl::string_view message,
                     const std::vector<LogField>& fields) const;

 private:
  void Write(absl::string_view level, absl::string_view message,
             const std::vector<LogField>& fields) const;
  LogFormat format_;
};

LogField Field(std::string key, std::string value);
LogField Field(std::string key, int64_t value);

// The process-wide logger main() configures.
Logger& ServerLog();

}  // namespace rgfx::service
