#include "service/event_log.h"

#include <ostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace hoard::service {
namespace {

void AppendJsonString(std::string* out, absl::string_view text) {
  out->push_back('"');
  for (const char c : text) {
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppendFormat(out, "\\u%04x", c);
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

bool NeedsQuotes(absl::string_view value) {
  if (value.empty()) return true;
  for (const char c : value) {
    if (c == ' ' || c == '"' || c == '=' || c == '\\' || static_cast<unsigned char>(c) < 0x20) {
      return true;
    }
  }
  return false;
}

}  // namespace

absl::StatusOr<LogFormat> ParseLogFormat(absl::string_view name) {
  if (name == "text") return LogFormat::kText;
  if (name == "json") return LogFormat::kJson;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown log format '", name, "' (formats: text, json)"));
}

std::string FormatEvent(LogFormat format, absl::Time time, absl::string_view event,
                        const LogFields& fields) {
  const std::string ts = absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", time, absl::UTCTimeZone());
  std::string line;
  if (format == LogFormat::kJson) {
    absl::StrAppend(&line, "{\"ts\":\"", ts, "\",\"event\":");
    AppendJsonString(&line, event);
    for (const auto& [key, value] : fields) {
      line.push_back(',');
      AppendJsonString(&line, key);
      line.push_back(':');
      AppendJsonString(&line, value);
    }
    line.push_back('}');
    return line;
  }
  absl::StrAppend(&line, ts, " ", event);
  for (const auto& [key, value] : fields) {
    absl::StrAppend(&line, " ", key, "=");
    if (NeedsQuotes(value)) {
      AppendJsonString(&line, value);
    } else {
      line.append(value);
    }
  }
  return line;
}

void EventLog::Write(absl::string_view event, const LogFields& fields) {
  const std::string line = FormatEvent(format_, absl::Now(), event, fields);
  absl::MutexLock lock(&mu_);
  *out_ << line << std::endl;
}

}  // namespace hoard::service
