#ifndef HOARD_SERVICE_CLI_FLAGS_H_
#define HOARD_SERVICE_CLI_FLAGS_H_

// The command lines of hoard's subcommands, parsed by CLI11 (Debian's
// libcli11-dev). A command declares each flag once on its CommandLine's
// app(), bound to the variable it fills, with its value name and help:
//
//   CommandLine command("play", "usage: hoard play [flags]\n\nPlays ...");
//   command.app().add_option("--players", players, "number of seats")
//       ->type_name("N")->transform(InRange(2, 5));
//   if (std::optional<int> exit = command.ParseOrExit(args)) return *exit;
//
// What this file adds to CLI11 is hoard's way with mistakes: one line in
// hoard's words ("unknown flag --gmae (did you mean --game?)", "--seed
// needs ...", "--game is given more than once"), the checks of values that
// several commands share, and --help's layout.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace hoard::cli {

class CommandLine {
 public:
  // `name` as in "hoard NAME"; `about` the text --help prints before the
  // flags, its usage lines first.
  CommandLine(std::string name, std::string about);

  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  // Where the command declares its flags. Every flag takes one value each
  // time it is given; a flag given twice is a mistake unless it collects
  // its values in a container; a flag without a value takes none
  // (`--quiet=yes` is a mistake).
  CLI::App& app() { return app_; }

  // The arguments that are not flags (a subcommand, an id, a file) go to
  // *words, in order. A command that does not call this takes none: any is
  // a mistake, "NAME takes no arguments besides flags, got 'x'".
  void Words(std::vector<std::string>* words);

  // Reads `args` into the bound variables. OK when the command may go on,
  // or when --help was given (wants_help(); nothing else is read then);
  // kInvalidArgument with the one line that names the mistake otherwise.
  absl::Status Parse(const std::vector<std::string>& args);
  bool wants_help() const { return wants_help_; }

  // The help: `about`, then a line for each flag ("  --game ID   the game").
  std::string Help();

  // Parse for a command: nullopt to go on; else the exit status to return
  // at once, the help printed on stdout (kExitOk) or the mistake on stderr
  // (kExitUsage).
  std::optional<int> ParseOrExit(const std::vector<std::string>& args);

 private:
  // Adds --help, the last flag, and sets what app() promises of every flag.
  void Seal();
  // The message of a mistake CLI11 found, in hoard's words.
  std::string Explain(const CLI::ParseError& error) const;
  // The message of an argument CLI11 left over (unknown flag or word), or
  // "" if none.
  std::string Leftovers() const;

  const std::string name_;
  CLI::App app_;
  std::vector<std::string>* words_ = nullptr;
  bool sealed_ = false;
  bool wants_help_ = false;
};

// Checks of flag values, for ->transform(). Each reads the value as hoard
// reads numbers (absl::SimpleAtoi, absl::SimpleAtod) and hands CLI11 the
// number it read, written so that CLI11 reads it back exactly (CLI11 alone
// would read 010 as 8, and a decimal fraction through a long double). A
// mistake is named in the check's own words, CommandLine putting the flag's
// name where they say {flag}.

// A whole number from `low` to `high`: "{flag} needs a number from LOW to
// HIGH".
CLI::Validator InRange(long long low, long long high);

// A whole number that fits an int: "{flag} needs a whole number, not 'x'".
CLI::Validator WholeNumber();

// A seed, a whole number from 0 to 2^64-1: "{flag} needs a whole number
// from 0 to 2^64-1, not 'x'".
CLI::Validator Seed();

// A finite number that `accept` takes; else `message`, with the value given
// where it says {value} ("{flag} needs a number above 0, not '{value}'").
CLI::Validator Number(std::function<bool(double)> accept, std::string message);

// A database address without a password in it (db::CheckNoPasswordInAddress):
// a command line shows in `ps`. "{flag}: the database address holds a
// password; ..." without the password.
CLI::Validator NoPasswordInAddress();

// --option NAME=VALUE, repeatable, into *options (a later value of a name
// wins); "--option needs NAME=VALUE, not 'x'" for one without a name or '='.
CLI::Option* AddGameOptionFlag(CLI::App& app, std::map<std::string, std::string>* options,
                               const std::string& help);

// Gives every flag of `app` but --help an environment variable: `prefix`
// and the flag's name in capitals, '-' as '_' (HOARD_SERVE_MAX_MATCHES for
// --max-matches with "HOARD_SERVE_"), read when the flag is not given and
// the variable is set and not empty. A flag without a value takes true,
// yes, 1, false, no or 0 there (in any case); anything else is a mistake,
// "HOARD_SERVE_PRIVATE is true, yes, 1, false, no or 0, not 'x'". Call it
// once every flag is declared.
void FlagsFromEnvironment(CLI::App& app, absl::string_view prefix);

// `value` if not empty, else that of the environment variable `variable`
// when set and not empty, else `fallback`.
std::string ValueOrEnv(const std::string& value, const char* variable, const std::string& fallback);

// The Levenshtein distance: the fewest insertions, deletions and
// substitutions of one character that turn `a` into `b`.
int EditDistance(absl::string_view a, absl::string_view b);

// The word of `known` that `word` most likely misspells, or "" if none is
// close: one at most two edits away (one for words of up to three letters),
// or one that `word` (three letters or more) begins.
std::string DidYouMean(absl::string_view word, const std::vector<std::string>& known);

// The usage error of a command whose subcommand (the first of `words`) is
// missing or none of `known`: "unknown COMMAND command 'lst' (did you mean
// 'list'?)" when one is close, else `usage`.
std::string SubcommandError(const std::string& command, const std::vector<std::string>& words,
                            const std::vector<std::string>& known, const std::string& usage);

}  // namespace hoard::cli

#endif  // HOARD_SERVICE_CLI_FLAGS_H_
