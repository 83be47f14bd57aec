#include "service/log.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace rgfx::service {
namespace {

std::string JsonQuote(absl::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// Text values with spaces or quotes are quoted so lines stay parseable.
std::string TextValue(absl::string_view s) {
  if (!s.empty() && s.find_first_of(" \"=\n") == absl::string_view::npos) return std::string(s);
  return JsonQuote(s);
}

}  // namespace

LogField Field(std::string key, std::string value) { return {std::move(key), std::move(value)}; }
LogField Field(std::string key, int64_t value) {
  return {std::move(key), absl::StrCat(value), true};
}

std::string Logger::Format(absl::string_view level, absl::string_view message,
                           const std::vector<LogField>& fields) const {
  const std::string time = absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::Now(), absl::UTCTimeZone());
  std::string line;
  if (format_ == LogFormat::kJson) {
    absl::StrAppend(&line, "{\"time\":\"", time, "\",\"level\":", JsonQuote(level),
                    ",\"msg\":", JsonQuote(message));
    for (const LogField& f : fields) {
      absl::StrAppend(&line, ",", JsonQuote(f.key), ":", f.number ? f.value : JsonQuote(f.value));
    }
    line += "}\n";
  } else {
    absl::StrAppend(&line, time, " ", level, " ", message);
    for (const LogField& f : fields) absl::StrAppend(&line, " ", f.key, "=", TextValue(f.value));
    line += "\n";
  }
  return line;
}

void Logger::Write(absl::string_view level, absl::string_view message,
                   const std::vector<LogField>& fields) const {
  const std::string line = Format(level, message, fields);
  // One fwrite per line: stdio locks the stream, so lines stay whole.
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

void Logger::Info(absl::string_view message, const std::vector<LogField>& fields) const {
  Write("INFO", message, fields);
}

void Logger::Warning(absl::string_view message, const std::vector<LogField>& fields) const {
  Write("WARNING", message, fields);
}

void Logger::Error(absl::string_view message, const std::vector<LogField>& fields) const {
  Write("ERROR", message, fields);
}

Logger& ServerLog() {
  static Logger* logger = new Logger();
  return *logger;
}

}  // namespace rgfx::service
