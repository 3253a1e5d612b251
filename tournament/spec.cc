#include "tournament/spec.h"

#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "bots/bot.h"
#include "engine/player_id.h"
#include "engine/registry.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "tournament/match_request.h"

namespace hoard::tournament {
namespace {

using hoard::v1::Participant;
using hoard::v1::TournamentSpec;

constexpr char kDefaultSpec[] = R"pb(
  name: "village league"
  game: "village"
  players_per_match: 3
  participants { name: "mcts" builtin: "mcts" }
  participants { name: "heuristic" builtin: "heuristic" }
  participants { name: "random" builtin: "random" }
  participants { name: "first" builtin: "first" }
  format: FORMAT_DUPLICATE
  rounds: 10
  seed: 2026
)pb";

// Collects text-format parse errors with their position.
class ErrorCollector final : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (first_.empty()) first_ = absl::StrCat("line ", line + 1, ":", column + 1, ": ", message);
  }
  const std::string& first() const { return first_; }

 private:
  std::string first_;
};

absl::Status FieldError(absl::string_view field, absl::string_view reason) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", reason));
}

}  // namespace

TournamentSpec DefaultSpec() {
  TournamentSpec spec;
  const bool parsed = google::protobuf::TextFormat::ParseFromString(kDefaultSpec, &spec);
  (void)parsed;  // the embedded text is tested to parse
  return spec;
}

absl::StatusOr<TournamentSpec> ParseSpec(absl::string_view text, absl::string_view source) {
  TournamentSpec spec;
  const std::string_view body(text.data(), text.size());
  const std::size_t first = body.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && body[first] == '{') {
    google::protobuf::util::JsonParseOptions options;
    const auto status = google::protobuf::util::JsonStringToMessage(
        google::protobuf::StringPiece(text.data(), text.size()), &spec, options);
    if (!status.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": not a tournament spec (JSON): ", status.message().ToString()));
    }
    return spec;
  }
  ErrorCollector errors;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(std::string(text), &spec)) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": not a tournament spec: ", errors.first()));
  }
  return spec;
}

absl::StatusOr<TournamentSpec> ReadSpecFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::stringstream text;
  text << in.rdbuf();
  return ParseSpec(text.str(), path);
}

std::string ParticipantLabel(const Participant& participant) {
  return engine::JoinBotName(participant.name(), participant.version());
}

namespace {

// The spec's game, once its id and options are within bounds.
absl::StatusOr<const engine::Game*> FindSpecGame(const TournamentSpec& spec) {
  if (spec.game().empty()) return FieldError("game", "missing (see 'hoard games')");
  if (absl::Status s = CheckClientStrings(spec.game(), spec.options()); !s.ok()) {
    return absl::InvalidArgumentError(s.message());
  }
  absl::StatusOr<const engine::Game*> found = engine::FindGame(spec.game());
  if (!found.ok()) return FieldError("game", found.status().message());
  return *found;
}

// Fills in players_per_match (as many as there are participants, within
// the game's range) and checks that the participants can fill a match.
absl::Status SetPlayersPerMatch(const engine::GameInfo& info, TournamentSpec& spec) {
  const int n = spec.participants_size();
  const bool ladder = spec.format() == hoard::v1::FORMAT_LADDER;
  if (spec.players_per_match() == 0) {
    // A ladder's entrants come later: its tables are as small as the game
    // plays.
    spec.set_players_per_match(ladder ? info.min_players
                                      : std::min(std::max(n, info.min_players), info.max_players));
  }
  const int k = spec.players_per_match();
  if (k < info.min_players || k > info.max_players) {
    return FieldError("players_per_match",
                      absl::StrFormat("%s takes %d to %d players, not %d", info.id,
                                      info.min_players, info.max_players, k));
  }
  if (n < k && !ladder) {
    return FieldError(
        "participants",
        absl::StrFormat("%d participant%s cannot fill %d-player matches", n, n == 1 ? "" : "s", k));
  }
  return absl::OkStatus();
}

// The participant's name and version, each a word of a bot name and
// together one.
absl::Status CheckParticipantName(const Participant& p, const std::string& field) {
  if (p.name().empty()) return FieldError(absl::StrCat(field, ".name"), "missing");
  if (absl::Status s = engine::CheckBotNameWord(p.name()); !s.ok()) {
    return FieldError(absl::StrCat(field, ".name"), s.message());
  }
  if (absl::Status s = engine::CheckBotNameWord(p.version()); !p.version().empty() && !s.ok()) {
    return FieldError(absl::StrCat(field, ".version"), s.message());
  }
  // Each word may be valid and the two together too long.
  if (absl::Status s = engine::CheckBotName(ParticipantLabel(p)); !s.ok()) {
    return FieldError(absl::StrCat(field, ".version"), s.message());
  }
  return absl::OkStatus();
}

// Who plays for the participant: exactly one kind, and a built-in bot the
// game has.
absl::Status CheckParticipantPlayer(const Participant& p, const std::string& field,
                                    const engine::Game& game) {
  switch (p.player_case()) {
    case Participant::kBuiltin:
      if (absl::StatusOr<std::unique_ptr<bots::Bot>> bot = bots::MakeBot(p.builtin(), game, 1);
          !bot.ok()) {
        return FieldError(absl::StrCat(field, ".builtin"),
                          absl::StrCat("no built-in bot '", p.builtin(), "' for ", game.info().id,
                                       " (built-in bots: ",
                                       absl::StrJoin(bots::BuiltinBotNames(game), ", "), ")"));
      }
      return absl::OkStatus();
    case Participant::kRegistered:
      if (!p.registered()) {
        return FieldError(absl::StrCat(field, ".registered"),
                          "must be true when set (or use builtin or command)");
      }
      return absl::OkStatus();
    case Participant::kCommand:
      if (absl::StripAsciiWhitespace(p.command()).empty()) {
        return FieldError(absl::StrCat(field, ".command"), "is empty");
      }
      return absl::OkStatus();
    case Participant::kCatalog:
      if (p.catalog().empty()) return FieldError(absl::StrCat(field, ".catalog"), "is empty");
      return absl::OkStatus();
    case Participant::PLAYER_NOT_SET:
      break;
  }
  return FieldError(field, "says neither builtin, registered, command nor catalog");
}

// Every participant checked; their names, unique, to their index.
absl::StatusOr<std::map<std::string, int>> CheckParticipants(const TournamentSpec& spec,
                                                             const engine::Game& game) {
  std::map<std::string, int> names;
  for (int i = 0; i < spec.participants_size(); ++i) {
    const Participant& p = spec.participants(i);
    const std::string field = absl::StrCat("participants[", i, "]");
    if (absl::Status s = CheckParticipantName(p, field); !s.ok()) return s;
    if (auto [it, added] = names.emplace(p.name(), i); !added) {
      return FieldError(absl::StrCat(field, ".name"),
                        absl::StrCat("'", p.name(), "' is also participants[", it->second,
                                     "]; names must be unique"));
    }
    if (absl::Status s = CheckParticipantPlayer(p, field, game); !s.ok()) return s;
  }
  return names;
}

// A match of the spec's size and options must start: names and values.
absl::Status CheckOptions(const TournamentSpec& spec, const engine::Game& game) {
  engine::MatchConfig config{.num_players = spec.players_per_match(), .seed = 1};
  config.options.insert(spec.options().begin(), spec.options().end());
  if (absl::StatusOr<std::unique_ptr<engine::State>> start = game.NewMatch(config); !start.ok()) {
    return FieldError("options", start.status().message());
  }
  return absl::OkStatus();
}

// Format, rounds, concurrency, time control and fault policy: defaults
// filled in, ranges checked.
absl::Status SetHowItRuns(TournamentSpec& spec) {
  if (!hoard::v1::Format_IsValid(spec.format())) {
    return FieldError("format", "unknown format");
  }
  if (spec.format() == hoard::v1::FORMAT_UNSPECIFIED) {
    spec.set_format(hoard::v1::FORMAT_ROUND_ROBIN);
  }
  if (spec.rounds() == 0 && spec.format() == hoard::v1::FORMAT_SWISS) {
    // Enough rounds for one participant to win every match at 2 a table.
    int rounds = 1;
    while ((1 << rounds) < spec.participants_size() && rounds < 30) ++rounds;
    spec.set_rounds(rounds);
  }
  if (spec.format() == hoard::v1::FORMAT_LADDER) {
    if (spec.rounds() != 0) return FieldError("rounds", "a ladder has no rounds (leave it 0)");
  } else if (spec.rounds() == 0) {
    spec.set_rounds(1);
  }
  if (spec.rounds() < 0) return FieldError("rounds", "must be 1 or more");
  if (spec.concurrency() == 0) spec.set_concurrency(kDefaultConcurrency);
  if (spec.concurrency() < 1 || spec.concurrency() > 10000) {
    return FieldError("concurrency",
                      absl::StrCat("must be from 1 to 10000, not ", spec.concurrency()));
  }
  if (absl::StatusOr<TimeControl> tc = TimeControlFrom(spec.time_control()); !tc.ok()) {
    return absl::InvalidArgumentError(tc.status().message());
  }
  hoard::v1::FaultPolicy* faults = spec.mutable_fault_policy();
  if (faults->start_timeout_ms() == 0) faults->set_start_timeout_ms(kDefaultStartTimeoutMs);
  if (faults->start_timeout_ms() < 0 || faults->start_timeout_ms() > 3600000) {
    return FieldError("fault_policy.start_timeout_ms", "must be from 1 to 3600000");
  }
  if (faults->max_failed_matches() == 0) {
    faults->set_max_failed_matches(kDefaultMaxFailedMatches);
  }
  if (faults->max_failed_matches() < 0) {
    return FieldError("fault_policy.max_failed_matches", "must be 1 or more");
  }
  return absl::OkStatus();
}

// Each candidate names a participant, once.
absl::Status CheckCandidates(const TournamentSpec& spec, const std::map<std::string, int>& names) {
  std::set<std::string> candidates;
  for (int i = 0; i < spec.candidates_size(); ++i) {
    if (!names.contains(spec.candidates(i))) {
      return FieldError(absl::StrCat("candidates[", i, "]"),
                        absl::StrCat("no participant is named '", spec.candidates(i), "'"));
    }
    if (!candidates.insert(spec.candidates(i)).second) {
      return FieldError(absl::StrCat("candidates[", i, "]"),
                        absl::StrCat("'", spec.candidates(i), "' is named twice"));
    }
  }
  return absl::OkStatus();
}

// A sequential test names a participant, in a duplicate tournament whose
// every block it plays against the same opponents; its defaults filled in.
absl::Status CheckSprt(TournamentSpec& spec, const std::map<std::string, int>& names) {
  hoard::v1::SprtSpec* sprt = spec.mutable_sprt();
  if (sprt->candidate().empty()) {
    if (sprt->ByteSizeLong() != 0) return FieldError("sprt.candidate", "names no participant");
    spec.clear_sprt();
    return absl::OkStatus();
  }
  if (!names.contains(sprt->candidate())) {
    return FieldError("sprt.candidate",
                      absl::StrCat("no participant is named '", sprt->candidate(), "'"));
  }
  if (spec.format() != hoard::v1::FORMAT_DUPLICATE) {
    return FieldError("sprt", "needs format FORMAT_DUPLICATE (its blocks are the test's unit)");
  }
  if (spec.participants_size() != spec.players_per_match()) {
    return FieldError(
        "sprt", absl::StrCat("needs as many participants as seats (", spec.players_per_match(),
                             "), so that every block "
                             "pits the candidate against the same opponents; got ",
                             spec.participants_size()));
  }
  if (!(sprt->elo0() < sprt->elo1())) {
    return FieldError("sprt.elo1", absl::StrCat("must be more than elo0 (", sprt->elo0(), "), not ",
                                                sprt->elo1()));
  }
  if (std::abs(sprt->elo0()) > 2000 || std::abs(sprt->elo1()) > 2000) {
    return FieldError("sprt", "elo0 and elo1 must be within ±2000");
  }
  if (sprt->alpha() == 0) sprt->set_alpha(0.05);
  if (sprt->beta() == 0) sprt->set_beta(0.05);
  for (const auto& [field, value] :
       {std::pair{"sprt.alpha", sprt->alpha()}, std::pair{"sprt.beta", sprt->beta()}}) {
    if (!(value > 0 && value < 0.5)) {
      return FieldError(field, absl::StrCat("must be above 0 and below 0.5, not ", value));
    }
  }
  return absl::OkStatus();
}

// A ladder's name and how it plays, its defaults filled in; a spec of
// another format says nothing of a ladder.
absl::Status CheckLadder(TournamentSpec& spec) {
  if (spec.format() != hoard::v1::FORMAT_LADDER) {
    if (spec.has_ladder()) return FieldError("ladder", "needs format FORMAT_LADDER");
    return absl::OkStatus();
  }
  if (spec.name().empty()) {
    return FieldError("name", "a ladder needs a name (bots join it by its name)");
  }
  if (absl::Status s = engine::CheckBotNameWord(spec.name()); !s.ok()) {
    return FieldError("name", absl::StrCat("a ladder's name: ", s.message()));
  }
  if (spec.candidates_size() > 0) return FieldError("candidates", "a ladder has no candidates");
  if (spec.has_sprt()) return FieldError("sprt", "a ladder runs no sequential test");
  hoard::v1::LadderSpec* ladder = spec.mutable_ladder();

  if (ladder->per_bot_concurrency() == 0) ladder->set_per_bot_concurrency(1);
  if (ladder->per_bot_concurrency() < 1 ||
      ladder->per_bot_concurrency() > kMaxLadderBotConcurrency) {
    return FieldError("ladder.per_bot_concurrency",
                      absl::StrCat("must be from 1 to ", kMaxLadderBotConcurrency, ", not ",
                                   ladder->per_bot_concurrency()));
  }
  if (ladder->placement_matches() == 0) ladder->set_placement_matches(kDefaultPlacementMatches);
  if (ladder->placement_matches() < 0 || ladder->placement_matches() > 100) {
    return FieldError("ladder.placement_matches",
                      absl::StrCat("must be from 1 to 100, not ", ladder->placement_matches()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<hoard::v1::FinalEvaluation> CheckFinalEvaluation(
    const hoard::v1::FinalEvaluation& asked) {
  hoard::v1::FinalEvaluation evaluation = asked;
  evaluation.clear_first_slot();
  if (evaluation.top() == 0) evaluation.set_top(3);
  if (evaluation.confidence() == 0) evaluation.set_confidence(0.95);
  if (evaluation.match_budget() == 0) evaluation.set_match_budget(10000);
  if (evaluation.top() < 1 || evaluation.top() > 50) {
    return FieldError("evaluation.top", absl::StrCat("must be from 1 to 50, not ", asked.top()));
  }
  if (!(evaluation.confidence() > 0 && evaluation.confidence() < 1)) {
    return FieldError("evaluation.confidence",
                      absl::StrCat("must be above 0 and below 1, not ", asked.confidence()));
  }
  if (evaluation.match_budget() < 1 || evaluation.match_budget() > 1000000) {
    return FieldError("evaluation.match_budget",
                      absl::StrCat("must be from 1 to 1000000, not ", asked.match_budget()));
  }
  return evaluation;
}

absl::StatusOr<std::int64_t> ScheduledAtStart(const TournamentSpec& spec) {
  if (spec.format() == hoard::v1::FORMAT_LADDER) return 0;  // numbered as they are chosen
  return ScheduleSize(ScheduleInputFor(spec));
}

absl::StatusOr<TournamentSpec> Normalize(const TournamentSpec& input) {
  TournamentSpec spec = input;
  absl::StatusOr<const engine::Game*> game = FindSpecGame(spec);
  if (!game.ok()) return game.status();
  if (absl::Status s = SetPlayersPerMatch((*game)->info(), spec); !s.ok()) return s;
  absl::StatusOr<std::map<std::string, int>> names = CheckParticipants(spec, **game);
  if (!names.ok()) return names.status();
  if (absl::Status s = CheckOptions(spec, **game); !s.ok()) return s;
  if (absl::Status s = SetHowItRuns(spec); !s.ok()) return s;
  if (absl::Status s = CheckCandidates(spec, *names); !s.ok()) return s;
  if (absl::Status s = CheckSprt(spec, *names); !s.ok()) return s;
  if (absl::Status s = CheckLadder(spec); !s.ok()) return s;
  if (absl::StatusOr<std::int64_t> size = ScheduledAtStart(spec); !size.ok()) {
    return size.status();
  }
  return spec;
}

std::string SpecHash(const TournamentSpec& spec) {
  // How many matches run at once, and how faults are tolerated, change no
  // result of a match that is played: they are left out, so a tournament
  // resumes with other values (a longer start timeout, say).
  TournamentSpec identity = spec;
  identity.clear_concurrency();
  identity.clear_fault_policy();
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream out(&stream);
    out.SetSerializationDeterministic(true);
    identity.SerializeToCodedStream(&out);
  }
  std::uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a, 64 bits
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return absl::StrFormat("%016x", hash);
}

ScheduleInput ScheduleInputFor(const TournamentSpec& spec) {
  ScheduleInput input;
  input.participants = spec.participants_size();
  input.players_per_match = spec.players_per_match();
  switch (spec.format()) {
    case hoard::v1::FORMAT_DUPLICATE:
      input.format = Format::kDuplicate;
      break;
    case hoard::v1::FORMAT_GAUNTLET:
      input.format = Format::kGauntlet;
      break;
    case hoard::v1::FORMAT_SWISS:
      input.format = Format::kSwiss;
      break;
    default:
      input.format = Format::kRoundRobin;
  }
  input.rounds = spec.rounds();
  input.seed = spec.seed();
  for (const std::string& candidate : spec.candidates()) {
    for (int i = 0; i < spec.participants_size(); ++i) {
      if (spec.participants(i).name() == candidate) input.candidates.push_back(i);
    }
  }
  return input;
}

}  // namespace hoard::tournament
