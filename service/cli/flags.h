#ifndef HOARD_SERVICE_CLI_FLAGS_H_
#define HOARD_SERVICE_CLI_FLAGS_H_

// A small command-line parser for hoard's subcommands: `--name value`,
// `--name=value`, boolean `--name`, repeatable flags, and positionals.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hoard::cli {

struct FlagSpec {
  std::string name;        // without the leading "--"
  std::string value_name;  // "" for a boolean flag
  std::string help;
  bool repeated = false;
};

struct ParsedArgs {
  std::map<std::string, std::vector<std::string>> flags;
  std::vector<std::string> positionals;

  bool Has(const std::string& name) const { return flags.contains(name); }
  // The last value given, or `fallback`.
  std::string Get(const std::string& name, const std::string& fallback) const;
};

// kInvalidArgument for an unknown flag (naming the flag it likely misspells),
// a missing value, or a --db address that holds a password
// (db::CheckNoPasswordInAddress).
absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args,
                                     const std::vector<FlagSpec>& specs);

// The value of --`flag`, else that of the environment variable `variable`
// when set and not empty, else `fallback`.
std::string FlagOrEnv(const ParsedArgs& args, const std::string& flag, const char* variable,
                      const std::string& fallback);

// The Levenshtein distance: the fewest insertions, deletions and
// substitutions of one character that turn `a` into `b`.
int EditDistance(absl::string_view a, absl::string_view b);

// The word of `known` that `word` most likely misspells, or "" if none is
// close: one at most two edits away (one for words of up to three letters),
// or one that `word` (three letters or more) begins.
std::string DidYouMean(absl::string_view word, const std::vector<std::string>& known);

// The usage error of a command whose subcommand (the first positional of
// `args`) is missing or none of `known`: "unknown COMMAND command 'lst' (did
// you mean 'list'?)" when one is close, else `usage`.
std::string SubcommandError(const std::string& command, const ParsedArgs& args,
                            const std::vector<std::string>& known, const std::string& usage);

// Adds every --option NAME=VALUE given to *options (a later value of a name
// wins); kInvalidArgument ("--option needs NAME=VALUE, not 'x'") for one
// without a name or '='.
absl::Status ReadOptionFlags(const ParsedArgs& args, std::map<std::string, std::string>* options);

// The --seed flag, or `fallback` when it is not given; kInvalidArgument for
// anything but a whole number from 0 to 2^64-1.
absl::StatusOr<std::uint64_t> ReadSeedFlag(const ParsedArgs& args, std::uint64_t fallback);

// "  --name VALUE   help" lines.
std::string FlagsHelp(const std::vector<FlagSpec>& specs);

// Parses an integer flag value, naming the flag on error.
absl::StatusOr<long long> ParseInt(absl::string_view flag, absl::string_view value);

// If --flag was given, stores its value in *out; kInvalidArgument ("--flag
// needs a number from LOW to HIGH") if it is no number in that range.
absl::Status ReadIntFlag(const ParsedArgs& args, const std::string& flag, int low, int high,
                         int* out);

}  // namespace hoard::cli

#endif  // HOARD_SERVICE_CLI_FLAGS_H_
