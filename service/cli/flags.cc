#include "service/cli/flags.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "db/store.h"
#include "service/cli/commands.h"

namespace hoard::cli {
namespace {

// CLI11's help with hoard's usage lines instead of its own: the command's
// text, then its flags, a line each, their help from the 28th column.
class HelpFormatter : public CLI::Formatter {
 public:
  HelpFormatter() { column_width(27); }
  std::string make_usage(const CLI::App*, std::string) const override { return ""; }
};

// A check whose failure CLI11 reports as "NAME: MESSAGE"; Explain puts NAME
// where MESSAGE says {flag}.
CLI::Validator Check(std::function<std::string(std::string&)> check) {
  return CLI::Validator(std::move(check), "", "hoard");
}

// "{flag}" in `message` (a check's) as `flag`.
std::string NameFlag(absl::string_view message, absl::string_view flag) {
  return absl::StrReplaceAll(message, {{"{flag}", flag}});
}

}  // namespace

CommandLine::CommandLine(std::string name, std::string about)
    : name_(std::move(name)),
      app_(std::string(absl::StripTrailingAsciiWhitespace(about)), "hoard " + name_) {
  app_.set_help_flag();  // --help is added last, by Seal
  app_.allow_extras();   // Leftovers names them in hoard's words
  app_.formatter(std::make_shared<HelpFormatter>());
  app_.option_defaults()->group("flags")->disable_flag_override();
}

void CommandLine::Words(std::vector<std::string>* words) {
  words_ = words;
  app_.add_option("words", *words)->group("");  // a group of no name hides it from the help
}

void CommandLine::Seal() {
  if (sealed_) return;
  sealed_ = true;
  // Throwing from --help's callback as soon as it is read: nothing after it
  // is read or checked (CLI11's own help flag is checked after the values).
  app_.add_flag_function(
          "--help",
          [this](std::int64_t) {
            wants_help_ = true;
            throw CLI::Success();
          },
          "show this help")
      ->trigger_on_parse();
  for (CLI::Option* option : app_.get_options()) {
    if (option->get_positional()) continue;
    // `--candidate a b`: b is no second candidate (CLI11 would take it).
    option->allow_extra_args(false);
    // CLI11 lets the last of a flag given twice win.
    if (option->get_multi_option_policy() == CLI::MultiOptionPolicy::TakeLast) {
      option->multi_option_policy(CLI::MultiOptionPolicy::Throw);
    }
  }
}

absl::Status CommandLine::Parse(const std::vector<std::string>& args) {
  Seal();
  wants_help_ = false;
  // CLI11 takes the arguments last first.
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app_.parse(reversed);
  } catch (const CLI::Success&) {
    return absl::OkStatus();  // --help
  } catch (const CLI::ParseError& error) {
    return absl::InvalidArgumentError(Explain(error));
  }
  if (std::string leftover = Leftovers(); !leftover.empty()) {
    return absl::InvalidArgumentError(leftover);
  }
  return absl::OkStatus();
}

std::string CommandLine::Explain(const CLI::ParseError& error) const {
  const std::string what = error.what();
  // CLI11's messages start with the flag's name: "--seed: ...".
  const std::size_t colon = what.find(": ");
  const std::string flag = colon == std::string::npos ? "" : what.substr(0, colon);
  const std::string rest = colon == std::string::npos ? what : what.substr(colon + 2);
  if (dynamic_cast<const CLI::ValidationError*>(&error) != nullptr) return NameFlag(rest, flag);
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr) {
    if (absl::EndsWith(what, " was given a disallowed flag override")) {  // --quiet=yes
      return absl::StrCat("--", what.substr(0, what.find(' ')), " takes no value");
    }
    if (absl::StartsWith(rest, "At Most ")) return absl::StrCat(flag, " is given more than once");
    if (absl::EndsWith(rest, " missing")) {
      const CLI::Option* option = app_.get_option_no_throw(flag);
      return absl::StrCat(flag, " needs a value (",
                          option == nullptr ? "" : option->get_type_name(), ")");
    }
  }
  return what;
}

std::string CommandLine::Leftovers() const {
  const std::vector<std::string> leftovers = app_.remaining();
  for (const std::string& arg : leftovers) {
    if (arg.size() < 3 || !absl::StartsWith(arg, "--")) continue;
    const std::string name = arg.substr(0, arg.find('=')).substr(2);  // --name=value
    std::vector<std::string> known;
    for (const CLI::Option* option : app_.get_options()) {
      for (const std::string& long_name : option->get_lnames()) known.push_back(long_name);
    }
    const std::string likely = DidYouMean(name, known);
    return absl::StrCat("unknown flag --", name,
                        likely.empty() ? "" : absl::StrCat(" (did you mean --", likely, "?)"));
  }
  for (const std::string& arg : leftovers) {
    if (arg == "--") continue;  // CLI11's end of the flags
    if (words_ != nullptr) return absl::StrCat("unexpected argument '", arg, "'");
    return absl::StrCat(name_, " takes no arguments besides flags, got '", arg, "'");
  }
  return "";
}

std::string CommandLine::Help() {
  Seal();
  return app_.help();
}

std::optional<int> CommandLine::ParseOrExit(const std::vector<std::string>& args) {
  if (absl::Status status = Parse(args); !status.ok()) {
    return Fail(kExitUsage, std::string(status.message()));
  }
  if (wants_help_) {
    std::cout << Help();
    return kExitOk;
  }
  return std::nullopt;
}

CLI::Validator InRange(long long low, long long high) {
  return Check([low, high](std::string& value) -> std::string {
    long long number = 0;
    if (!absl::SimpleAtoi(value, &number) || number < low || number > high) {
      return absl::StrCat("{flag} needs a number from ", low, " to ", high);
    }
    value = absl::StrCat(number);
    return "";
  });
}

CLI::Validator WholeNumber() {
  return Check([](std::string& value) -> std::string {
    int number = 0;
    if (!absl::SimpleAtoi(value, &number)) {
      return absl::StrCat("{flag} needs a whole number, not '", value, "'");
    }
    value = absl::StrCat(number);
    return "";
  });
}

CLI::Validator Seed() {
  return Check([](std::string& value) -> std::string {
    std::uint64_t seed = 0;
    if (!absl::SimpleAtoi(value, &seed)) {
      return absl::StrCat("{flag} needs a whole number from 0 to 2^64-1, not '", value, "'");
    }
    value = absl::StrCat(seed);
    return "";
  });
}

CLI::Validator Number(std::function<bool(double)> accept, std::string message) {
  return Check([accept = std::move(accept),
                message = std::move(message)](std::string& value) -> std::string {
    double number = 0;
    if (!absl::SimpleAtod(value, &number) || !std::isfinite(number) || !accept(number)) {
      return absl::StrReplaceAll(message, {{"{value}", value}});
    }
    value = absl::StrFormat("%a", number);  // exact, as a hexadecimal fraction
    return "";
  });
}

CLI::Validator NoPasswordInAddress() {
  return Check([](std::string& value) -> std::string {
    if (absl::Status s = db::CheckNoPasswordInAddress(value); !s.ok()) {
      return absl::StrCat("{flag}: ", s.message());
    }
    return "";
  });
}

CLI::Option* AddGameOptionFlag(CLI::App& app, std::map<std::string, std::string>* options,
                               const std::string& help) {
  CLI::callback_t read = [options](const CLI::results_t& values) {
    for (const std::string& option : values) {
      const std::size_t eq = option.find('=');
      (*options)[option.substr(0, eq)] = option.substr(eq + 1);
    }
    return true;
  };
  return app.add_option("--option", read, help)
      ->type_name("NAME=VALUE")
      ->expected(1, CLI::detail::expected_max_vector_size)
      ->check(Check([](std::string& option) -> std::string {
        const std::size_t eq = option.find('=');
        if (eq == std::string::npos || eq == 0) {
          return absl::StrCat("--option needs NAME=VALUE, not '", option, "'");
        }
        return "";
      }));
}

void FlagsFromEnvironment(CLI::App& app, absl::string_view prefix) {
  for (CLI::Option* option : app.get_options()) {
    if (option->get_lnames().empty() || option->get_lnames()[0] == "help") continue;
    std::string variable(prefix);
    for (const char c : option->get_lnames()[0]) {
      variable.push_back(c == '-' ? '_' : absl::ascii_toupper(c));
    }
    option->envname(variable);
    if (option->get_expected_max() != 0) continue;
    // A flag reads "true" from the command line, and what the variable says.
    option->transform(Check([variable](std::string& value) -> std::string {
      const std::string word = absl::AsciiStrToLower(value);
      if (word == "1" || word == "true" || word == "yes") {
        value = "true";
      } else if (word == "0" || word == "false" || word == "no") {
        value = "false";
      } else {
        return absl::StrCat(variable, " is true, yes, 1, false, no or 0, not '", value, "'");
      }
      return "";
    }));
  }
}

std::string ValueOrEnv(const std::string& value, const char* variable,
                       const std::string& fallback) {
  if (!value.empty()) return value;
  const char* set = std::getenv(variable);
  return set != nullptr && *set != '\0' ? set : fallback;
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
    if (distance > 1 && word.size() >= 3 && absl::StartsWith(candidate, word)) {
      distance = 1;  // an abbreviation counts as a near miss, nearer than two slips
    }
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string SubcommandError(const std::string& command, const std::vector<std::string>& words,
                            const std::vector<std::string>& known, const std::string& usage) {
  if (words.empty()) return usage;
  const std::string& word = words[0];
  if (std::find(known.begin(), known.end(), word) != known.end()) return usage;
  const std::string likely = DidYouMean(word, known);
  if (likely.empty()) return usage;
  return absl::StrCat("unknown ", command, " command '", word, "' (did you mean '", likely, "'?)");
}

}  // namespace hoard::cli
