#include "service/cli/flags.h"

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "db/store.h"

namespace hoard::cli {

std::string ParsedArgs::Get(const std::string& name, const std::string& fallback) const {
  auto it = flags.find(name);
  return it == flags.end() ? fallback : it->second.back();
}

absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args,
                                     const std::vector<FlagSpec>& specs) {
  ParsedArgs parsed;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.size() < 3 || arg.compare(0, 2, "--") != 0) {
      parsed.positionals.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    }
    const FlagSpec* spec = nullptr;
    for (const FlagSpec& candidate : specs) {
      if (candidate.name == name) spec = &candidate;
    }
    if (spec == nullptr) {
      std::vector<std::string> known;
      for (const FlagSpec& candidate : specs) known.push_back(candidate.name);
      const std::string likely = DidYouMean(name, known);
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag --", name,
                       likely.empty() ? "" : absl::StrCat(" (did you mean --", likely, "?)")));
    }
    if (spec->value_name.empty()) {
      if (value) {
        return absl::InvalidArgumentError(absl::StrCat("--", name, " takes no value"));
      }
      value = "true";
    } else if (!value) {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--", name, " needs a value (", spec->value_name, ")"));
      }
      value = args[++i];
    }
    // A database password on a command line shows in `ps`: every --db is checked here.
    if (name == "db") {
      if (absl::Status s = db::CheckNoPasswordInAddress(*value); !s.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("--db: ", s.message()));
      }
    }
    std::vector<std::string>& values = parsed.flags[name];
    if (!values.empty() && !spec->repeated) {
      return absl::InvalidArgumentError(absl::StrCat("--", name, " is given more than once"));
    }
    values.push_back(*value);
  }
  return parsed;
}

std::string FlagOrEnv(const ParsedArgs& args, const std::string& flag, const char* variable,
                      const std::string& fallback) {
  if (args.Has(flag)) return args.Get(flag, fallback);
  const char* value = std::getenv(variable);
  return value != nullptr && *value != '\0' ? value : fallback;
}

int EditDistance(absl::string_view a, absl::string_view b) {
  // One row of the table at a time: row[j] is the distance between the
  // prefix of `a` read so far and the first j characters of `b`.
  std::vector<int> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    int diagonal = row[0];
    row[0] = static_cast<int>(i);
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const int substituted = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substituted});
    }
  }
  return row[b.size()];
}

std::string DidYouMean(absl::string_view word, const std::vector<std::string>& known) {
  const int most = word.size() <= 3 ? 1 : 2;
  std::string best;
  int best_distance = most + 1;
  for (const std::string& candidate : known) {
    int distance = EditDistance(word, candidate);
    if (distance > most && word.size() >= 3 && absl::StartsWith(candidate, word)) {
      distance = most;  // an abbreviation counts as a near miss
    }
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string SubcommandError(const std::string& command, const ParsedArgs& args,
                            const std::vector<std::string>& known, const std::string& usage) {
  if (args.positionals.empty()) return usage;
  const std::string& word = args.positionals[0];
  if (std::find(known.begin(), known.end(), word) != known.end()) return usage;
  const std::string likely = DidYouMean(word, known);
  if (likely.empty()) return usage;
  return absl::StrCat("unknown ", command, " command '", word, "' (did you mean '", likely, "'?)");
}

absl::Status ReadOptionFlags(const ParsedArgs& args, std::map<std::string, std::string>* options) {
  if (!args.Has("option")) return absl::OkStatus();
  for (const std::string& option : args.flags.at("option")) {
    const std::size_t eq = option.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--option needs NAME=VALUE, not '", option, "'"));
    }
    (*options)[option.substr(0, eq)] = option.substr(eq + 1);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::uint64_t> ReadSeedFlag(const ParsedArgs& args, std::uint64_t fallback) {
  if (!args.Has("seed")) return fallback;
  std::uint64_t seed = 0;
  if (!absl::SimpleAtoi(args.Get("seed", ""), &seed)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--seed needs a whole number from 0 to 2^64-1, not '", args.Get("seed", ""), "'"));
  }
  return seed;
}

std::string FlagsHelp(const std::vector<FlagSpec>& specs) {
  std::string out;
  for (const FlagSpec& spec : specs) {
    const std::string left =
        absl::StrCat("--", spec.name, spec.value_name.empty() ? "" : " " + spec.value_name);
    absl::StrAppend(&out, absl::StrFormat("  %-24s %s\n", left, spec.help));
  }
  return out;
}

absl::StatusOr<long long> ParseInt(absl::string_view flag, absl::string_view value) {
  long long parsed = 0;
  if (!absl::SimpleAtoi(value, &parsed)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, " needs a whole number, not '", value, "'"));
  }
  return parsed;
}

absl::Status ReadIntFlag(const ParsedArgs& args, const std::string& flag, int low, int high,
                         int* out) {
  if (!args.Has(flag)) return absl::OkStatus();
  absl::StatusOr<long long> value = ParseInt(flag, args.Get(flag, ""));
  if (!value.ok() || *value < low || *value > high) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, " needs a number from ", low, " to ", high));
  }
  *out = static_cast<int>(*value);
  return absl::OkStatus();
}

}  // namespace hoard::cli
