#include "service/cli/flags.h"

#include <cstdlib>

#include "engine/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hoard::cli {
namespace {

using ::hoard::testing::IsOk;
using ::hoard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A command with a flag of each kind, as the commands declare them.
struct Example {
  std::string game = "village";
  int players = 4;
  std::uint64_t seed = 1;
  std::map<std::string, std::string> options;
  std::vector<std::string> servers;
  bool quiet = false;
  std::vector<std::string> words;
  CommandLine command{"example", "usage: hoard example [flags]\n\nDoes nothing.\n"};

  explicit Example(bool takes_words = true) {
    CLI::App& app = command.app();
    app.add_option("--game", game, "the game")->type_name("ID");
    app.add_option("--players", players, "number of seats")
        ->type_name("N")
        ->transform(InRange(2, 5));
    app.add_option("--seed", seed, "the seed")->type_name("N")->transform(Seed());
    AddGameOptionFlag(app, &options, "a game option (repeatable)");
    app.add_option("--server", servers, "a server (repeatable)")->type_name("HOST:PORT");
    app.add_flag("--quiet", quiet, "print less");
    if (takes_words) command.Words(&words);
  }

  // The message of the mistake in `args`.
  std::string Mistake(const std::vector<std::string>& args) {
    const absl::Status status = command.Parse(args);
    EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
    return std::string(status.message());
  }
};

TEST(FlagsTest, ReadsBothFormsFlagsRepeatsAndWords) {
  Example example;
  ASSERT_THAT(example.command.Parse({"verify", "--game", "frost_dragon", "--option=a=1", "--option",
                                     "b=2", "--quiet", "--server", "h:1", "--server=h:2",
                                     "--players=3", "file.json", "--seed", "42"}),
              IsOk());
  EXPECT_FALSE(example.command.wants_help());
  EXPECT_EQ(example.game, "frost_dragon");
  EXPECT_EQ(example.players, 3);
  EXPECT_EQ(example.seed, 42u);
  EXPECT_EQ(example.options, (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}}));
  EXPECT_THAT(example.servers, ElementsAre("h:1", "h:2"));
  EXPECT_TRUE(example.quiet);
  EXPECT_THAT(example.words, ElementsAre("verify", "file.json"));
}

TEST(FlagsTest, UnsetFlagsKeepTheirDefaults) {
  Example example;
  ASSERT_THAT(example.command.Parse({}), IsOk());
  EXPECT_EQ(example.game, "village");
  EXPECT_EQ(example.players, 4);
  EXPECT_EQ(example.seed, 1u);
  EXPECT_FALSE(example.quiet);
}

TEST(FlagsTest, ARepeatableFlagTakesOneValueEachTime) {
  Example example;
  ASSERT_THAT(example.command.Parse({"--server", "h:1", "get", "--option", "a=1", "b"}), IsOk());
  EXPECT_THAT(example.servers, ElementsAre("h:1"));
  EXPECT_EQ(example.options.size(), 1u);
  EXPECT_THAT(example.words, ElementsAre("get", "b"));
}

TEST(FlagsTest, MistakesAreNamed) {
  EXPECT_EQ(Example().Mistake({"--game"}), "--game needs a value (ID)");
  EXPECT_EQ(Example().Mistake({"--game", "a", "--game", "b"}), "--game is given more than once");
  EXPECT_EQ(Example().Mistake({"--quiet", "--quiet"}), "--quiet is given more than once");
  EXPECT_EQ(Example().Mistake({"--quiet=yes"}), "--quiet takes no value");
  EXPECT_EQ(Example(/*takes_words=*/false).Mistake({"--quiet", "extra"}),
            "example takes no arguments besides flags, got 'extra'");
}

TEST(FlagsTest, AnUnknownFlagNamesTheOneItLikelyMisspells) {
  EXPECT_EQ(Example().Mistake({"--gmae", "village"}), "unknown flag --gmae (did you mean --game?)");
  EXPECT_EQ(Example().Mistake({"--opt=a=1"}), "unknown flag --opt (did you mean --option?)");
  EXPECT_EQ(Example().Mistake({"--hlep"}), "unknown flag --hlep (did you mean --help?)");
  EXPECT_EQ(Example().Mistake({"--colour", "red"}), "unknown flag --colour");
  // An unknown flag is named before a word the command does not take.
  EXPECT_EQ(Example(false).Mistake({"word", "--colour", "3"}), "unknown flag --colour");
}

TEST(FlagsTest, NumbersOutOfRangeOrNoNumbersAreNamed) {
  for (const char* bad : {"1", "6", "four", "", "3.5"}) {
    EXPECT_EQ(Example().Mistake({"--players", bad}), "--players needs a number from 2 to 5") << bad;
  }
  for (const char* bad : {"-1", "x", "18446744073709551616"}) {
    EXPECT_EQ(Example().Mistake({"--seed", bad}),
              std::string("--seed needs a whole number from 0 to 2^64-1, not '") + bad + "'");
  }
  int count = 0;
  CommandLine command("c", "");
  command.app().add_option("--count", count, "")->transform(WholeNumber());
  EXPECT_EQ(command.Parse({"--count", "four"}).message(),
            "--count needs a whole number, not 'four'");
}

TEST(FlagsTest, NumbersAreReadAsHoardReadsThem) {
  Example example;
  // CLI11 alone would read 010 as 8.
  ASSERT_THAT(example.command.Parse({"--players", "05", "--seed", "18446744073709551615"}), IsOk());
  EXPECT_EQ(example.players, 5);
  EXPECT_EQ(example.seed, 18446744073709551615u);
  double alpha = 0;
  CommandLine command("c", "");
  command.app()
      .add_option("--alpha", alpha, "")
      ->transform(Number([](double p) { return p > 0 && p < 1; },
                         "{flag} needs a number between 0 and 1, not '{value}'"));
  ASSERT_THAT(command.Parse({"--alpha", "0.1"}), IsOk());
  EXPECT_EQ(alpha, 0.1);  // every bit, not a long double's rounding
  EXPECT_EQ(command.Parse({"--alpha", "1.5"}).message(),
            "--alpha needs a number between 0 and 1, not '1.5'");
  EXPECT_EQ(command.Parse({"--alpha", "nan"}).message(),
            "--alpha needs a number between 0 and 1, not 'nan'");
}

TEST(FlagsTest, OptionsNeedANameAndAValue) {
  Example example;
  ASSERT_THAT(example.command.Parse({"--option", "a=1", "--option", "b=x=y", "--option", "a=2"}),
              IsOk());
  EXPECT_EQ(example.options, (std::map<std::string, std::string>{{"a", "2"}, {"b", "x=y"}}));
  for (const char* bad : {"=3", "novalue"}) {
    EXPECT_EQ(Example().Mistake({"--option", bad}),
              std::string("--option needs NAME=VALUE, not '") + bad + "'");
  }
}

TEST(FlagsTest, ADatabaseAddressWithAPasswordIsRefused) {
  std::string db;
  CommandLine command("c", "");
  command.app().add_option("--db", db, "the database")->check(NoPasswordInAddress());
  const absl::Status refused =
      command.Parse({"--db", "postgresql://hoard:s3cret@db.example/hoard"});
  EXPECT_THAT(refused, StatusIs(absl::StatusCode::kInvalidArgument,
                                HasSubstr("--db: the database address holds a password")));
  EXPECT_THAT(std::string(refused.message()), ::testing::Not(HasSubstr("s3cret")));
  EXPECT_THAT(command.Parse({"--db=postgresql://hoard@db.example/hoard"}), IsOk());
  EXPECT_THAT(command.Parse({"--db", "hoard.db"}), IsOk());
  EXPECT_EQ(db, "hoard.db");
}

TEST(FlagsTest, HelpListsTheFlagsAndStopsTheReading) {
  Example example;
  // Nothing after --help is read, and nothing before it is checked.
  ASSERT_THAT(example.command.Parse({"--players", "9", "--help", "--nonsense"}), IsOk());
  EXPECT_TRUE(example.command.wants_help());
  const std::string help = example.command.Help();
  EXPECT_THAT(help, ::testing::StartsWith("usage: hoard example [flags]\n\nDoes nothing.\n"));
  EXPECT_THAT(help, HasSubstr("\n  --game ID                the game\n"));
  EXPECT_THAT(help, HasSubstr("\n  --players N              number of seats\n"));
  EXPECT_THAT(help, HasSubstr("\n  --quiet                  print less\n"));
  EXPECT_THAT(help, HasSubstr("\n  --option NAME=VALUE ...  a game option (repeatable)\n"));
  // --help is the last flag, and the words are no flag.
  EXPECT_THAT(help, HasSubstr("  --help                   show this help\n"));
  EXPECT_LT(help.find("--quiet"), help.find("--help "));
  EXPECT_THAT(help, ::testing::Not(HasSubstr("words")));
}

TEST(FlagsTest, EveryFlagMayComeFromTheEnvironment) {
  int matches = 20;
  bool open = false;
  bool private_reads = false;
  std::string listen = "127.0.0.1:50051";
  auto parse = [&](const std::vector<std::string>& args) {
    matches = 20;
    open = private_reads = false;
    listen = "127.0.0.1:50051";
    CommandLine command("serve", "");
    CLI::App& app = command.app();
    app.add_option("--max-matches", matches, "")->transform(InRange(1, 100));
    app.add_flag("--open-registration", open, "");
    app.add_flag("--private", private_reads, "");
    app.add_option("--listen", listen, "");
    FlagsFromEnvironment(app, "HOARD_FLAGS_TEST_");
    return command.Parse(args);
  };
  setenv("HOARD_FLAGS_TEST_MAX_MATCHES", "7", 1);
  setenv("HOARD_FLAGS_TEST_OPEN_REGISTRATION", "Yes", 1);
  setenv("HOARD_FLAGS_TEST_PRIVATE", "0", 1);
  setenv("HOARD_FLAGS_TEST_LISTEN", "", 1);  // empty: as if not set
  ASSERT_THAT(parse({}), IsOk());
  EXPECT_EQ(matches, 7);
  EXPECT_TRUE(open);
  EXPECT_FALSE(private_reads);
  EXPECT_EQ(listen, "127.0.0.1:50051");
  // The command line wins.
  ASSERT_THAT(parse({"--max-matches", "9", "--private"}), IsOk());
  EXPECT_EQ(matches, 9);
  EXPECT_TRUE(private_reads);
  // A value from the environment is checked as one from the command line.
  setenv("HOARD_FLAGS_TEST_MAX_MATCHES", "0", 1);
  EXPECT_EQ(parse({}).message(), "--max-matches needs a number from 1 to 100");
  unsetenv("HOARD_FLAGS_TEST_MAX_MATCHES");
  setenv("HOARD_FLAGS_TEST_PRIVATE", "maybe", 1);
  EXPECT_EQ(parse({}).message(),
            "HOARD_FLAGS_TEST_PRIVATE is true, yes, 1, false, no or 0, not 'maybe'");
  for (const char* name : {"HOARD_FLAGS_TEST_OPEN_REGISTRATION", "HOARD_FLAGS_TEST_PRIVATE",
                           "HOARD_FLAGS_TEST_LISTEN"}) {
    unsetenv(name);
  }
}

TEST(FlagsTest, EditDistanceCountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(EditDistance("", ""), 0);
  EXPECT_EQ(EditDistance("match", "match"), 0);
  EXPECT_EQ(EditDistance("", "bot"), 3);
  EXPECT_EQ(EditDistance("mach", "match"), 1);
  EXPECT_EQ(EditDistance("matchs", "match"), 1);
  EXPECT_EQ(EditDistance("metch", "match"), 1);
  EXPECT_EQ(EditDistance("tournamnet", "tournament"), 2);  // a swap is two edits
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3);
}

TEST(FlagsTest, DidYouMeanSuggestsOnlyNearMisses) {
  const std::vector<std::string> commands = {"play",        "bot",        "bots",  "match",
                                             "leaderboard", "tournament", "health"};
  EXPECT_EQ(DidYouMean("mach", commands), "match");
  EXPECT_EQ(DidYouMean("helth", commands), "health");
  EXPECT_EQ(DidYouMean("lederbord", commands), "leaderboard");
  EXPECT_EQ(DidYouMean("tournamnet", commands), "tournament");
  EXPECT_EQ(DidYouMean("tourn", commands), "tournament");  // an abbreviation
  EXPECT_EQ(DidYouMean("bts", commands), "bots");          // one edit, where bot is two
  EXPECT_EQ(DidYouMean("fly", commands), "");              // two edits from play: too far
  EXPECT_EQ(DidYouMean("chess", commands), "");
  EXPECT_EQ(DidYouMean("mach", {}), "");
}

TEST(FlagsTest, AMisspeltSubcommandIsNamed) {
  const std::vector<std::string> known = {"add", "list", "revoke"};
  EXPECT_EQ(SubcommandError("bots", {"lst"}, known, "usage"),
            "unknown bots command 'lst' (did you mean 'list'?)");
  EXPECT_EQ(SubcommandError("bots", {"list", "x"}, known, "usage"), "usage");
  EXPECT_EQ(SubcommandError("bots", {"fly"}, known, "usage"), "usage");
  EXPECT_EQ(SubcommandError("bots", {}, known, "usage"), "usage");
}

}  // namespace
}  // namespace hoard::cli
