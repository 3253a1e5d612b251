#include "tournament/ladder_format.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "engine/seed_commitment.h"
#include "tournament/spec.h"

namespace hoard::tournament {

using hoard::v1::Participant;

std::uint64_t LadderDealSeed(std::uint64_t ladder_seed, int index) {
  // SHA-256 of "SEED:ladder-deal-INDEX", as hex: its first 16 digits.
  const std::string digest =
      engine::SeedCommitment(ladder_seed, absl::StrCat("ladder-deal-", index));
  std::uint64_t seed = 0;
  const bool parsed = absl::SimpleHexAtoi(digest.substr(0, 16), &seed);
  (void)parsed;                 // SHA-256 in hex always parses
  return seed != 0 ? seed : 1;  // a match seeded 0 would get a random deal
}

namespace {

// Draws of the posterior per check of a final evaluation: the probability
// is then known within about 0.011 (one standard deviation at most
// 0.5/sqrt(2000)).
constexpr int kEvaluationDraws = 2000;

std::string KeyOf(const std::string& label, bool builtin) {
  return absl::StrCat(builtin ? "builtin:" : "bot:", label);
}

MatchmakerOptions MatchmakerOptionsOf(const hoard::v1::TournamentSpec& spec) {
  MatchmakerOptions options;
  options.players = spec.players_per_match();
  options.placement_matches = spec.ladder().placement_matches();
  options.seed = spec.seed();
  return options;
}

}  // namespace

LadderFormat::LadderFormat(const hoard::v1::TournamentSpec& spec)
    : name_(spec.name()),
      seed_(spec.seed()),
      open_(spec.ladder().open()),
      per_bot_(spec.ladder().per_bot_concurrency()),
      concurrency_(spec.concurrency()),
      matchmaker_(MatchmakerOptionsOf(spec)) {
  for (const Participant& p : spec.participants()) {
    Entrant entrant{.participant = p, .label = ParticipantLabel(p), .listed = true};
    by_key_.emplace(KeyOf(entrant.label, p.has_builtin()), static_cast<int>(entrants_.size()));
    entrants_.push_back(std::move(entrant));
  }
  joined_told_ = entrants_.size();
  matchmaker_.Grow(static_cast<int>(entrants_.size()));
  if (spec.ladder().has_final_evaluation()) Freeze(spec.ladder().final_evaluation());
}

void LadderFormat::Freeze(const hoard::v1::FinalEvaluation& evaluation) {
  frozen_ = true;
  evaluation_ = evaluation;
}

void LadderFormat::Update(const hoard::v1::TournamentSpec& stored) {
  if (frozen_ || !stored.ladder().has_final_evaluation()) return;
  Freeze(stored.ladder().final_evaluation());
  matchmaker_.FocusOnTop(std::min(evaluation_.top(), matchmaker_.entrants()));
  // Results stored before the freeze reached the format before its slot.
  Evaluate(-1);
}

double LadderFormat::Confidence() {
  const int entrants = matchmaker_.entrants();
  const int top = std::min(evaluation_.top(), entrants);
  // Beyond what the posterior's draws are offered for, the budget decides.
  if (top < 1 || entrants > kRankProbabilityMaxBots) return 0;
  return matchmaker_.TopOrderConfidence(top, kEvaluationDraws);
}

void LadderFormat::Evaluate(int index) {
  if (!frozen_ || done_) return;
  const bool counts = index >= evaluation_.first_slot();
  if (counts) ++evaluation_matches_;
  const bool spent = evaluation_matches_ >= evaluation_.match_budget();
  // A check costs a few milliseconds at a hundred entrants: made after
  // every result of a small field, every tenth of the entrants' count in a
  // large one (and whenever asked, index -1).
  const int every = std::max(1, matchmaker_.entrants() / 10);
  if (index >= 0 && !spent && !(counts && evaluation_matches_ % every == 0)) return;
  confidence_ = Confidence();
  settled_ = confidence_ >= evaluation_.confidence();
  done_ = settled_ || spent;
}

void LadderFormat::Describe(const Standings& elo, hoard::v1::TournamentProgress& progress) const {
  TournamentFormat::Describe(elo, progress);
  hoard::v1::LadderState* state = progress.mutable_ladder();
  state->set_entrants(static_cast<int>(entrants_.size()));
  state->set_present(static_cast<int>(std::count_if(entrants_.begin(), entrants_.end(),
                                                    [](const Entrant& e) { return e.present; })));
  state->set_frozen(frozen_);
  state->set_evaluation_matches(evaluation_matches_);
  state->set_confidence(confidence_);
  state->set_settled(settled_);
}

int LadderFormat::EntrantOf(const std::string& label, bool builtin, bool add) {
  if (auto it = by_key_.find(KeyOf(label, builtin)); it != by_key_.end()) return it->second;
  // Only bot accounts join; a built-in bot is a participant of the spec.
  if (!add || builtin) return -1;
  Participant participant;
  // An account's name is name@version or a name alone (engine/player_id.h).
  const std::size_t at = label.find('@');
  participant.set_name(label.substr(0, at));
  if (at != std::string::npos) participant.set_version(label.substr(at + 1));
  participant.set_registered(true);
  const int number = static_cast<int>(entrants_.size());
  entrants_.push_back({.participant = std::move(participant), .label = label});
  by_key_.emplace(KeyOf(label, false), number);
  matchmaker_.Grow(number + 1);
  return number;
}

absl::Status LadderFormat::Resume(const std::set<int>& done,
                                  const std::vector<db::RatedMatch>& stored) {
  std::vector<const db::RatedMatch*> in_order;
  for (const db::RatedMatch& match : stored) in_order.push_back(&match);
  std::sort(in_order.begin(), in_order.end(), [](const db::RatedMatch* a, const db::RatedMatch* b) {
    return a->schedule_index < b->schedule_index;
  });
  for (const db::RatedMatch* match : in_order) {
    std::vector<int> seats;
    std::vector<int> ranks;
    for (const db::RatedSeat& seat : match->seats) {
      const int entrant = EntrantOf(seat.bot, seat.builtin, /*add=*/true);
      if (entrant < 0) {
        return absl::DataLossError(absl::StrCat("stored match ", match->schedule_index,
                                                " of the ladder seats built-in bot '", seat.bot,
                                                "', which is not one of its participants"));
      }
      seats.push_back(entrant);
      ranks.push_back(seat.rank);
    }
    if (seats.size() >= 2) matchmaker_.Add(seats, ranks);
    if (frozen_ && match->schedule_index >= evaluation_.first_slot()) ++evaluation_matches_;
  }
  if (!done.empty()) next_index_ = *done.rbegin() + 1;
  if (frozen_) {
    matchmaker_.FocusOnTop(std::min(evaluation_.top(), matchmaker_.entrants()));
    // Where the evaluation stood when it stopped: settled, spent, or going on.
    Evaluate(-1);
  }
  return absl::OkStatus();
}

void LadderFormat::Present(const hoard::v1::ListBotsResponse& bots) {
  std::map<std::string, const hoard::v1::BotInfo*> connected;
  for (const hoard::v1::BotInfo& bot : bots.bots()) {
    if (bot.connected()) connected.emplace(bot.name(), &bot);
  }
  auto joins = [this](const hoard::v1::BotInfo& bot) {
    return std::find(bot.ladders().begin(), bot.ladders().end(), name_) != bot.ladders().end();
  };
  for (Entrant& entrant : entrants_) {
    entrant.present = false;
    entrant.capacity = 0;
    if (entrant.participant.has_builtin()) {
      entrant.present = true;
      entrant.capacity = per_bot_;
      continue;
    }
    auto it = connected.find(entrant.label);
    if (it == connected.end()) continue;
    const hoard::v1::BotInfo& bot = *it->second;
    const bool launched = entrant.participant.has_command() || entrant.participant.has_catalog();
    // A bot that joined before must name the ladder again to play in it.
    if (!launched && !joins(bot)) continue;
    if (!entrant.listed && !open_) continue;
    entrant.present = true;
    // Its own limit counts the matches it plays elsewhere too.
    const int free_elsewhere = bot.max_matches() - (bot.running_matches() - entrant.in_flight);
    entrant.capacity = std::max(0, std::min(per_bot_, free_elsewhere));
  }
  // Entries close with the final evaluation.
  if (!open_ || frozen_) return;
  for (const auto& [name, bot] : connected) {
    if (!joins(*bot) || by_key_.contains(KeyOf(name, false))) continue;
    Entrant& entrant = entrants_[EntrantOf(name, /*builtin=*/false, /*add=*/true)];
    entrant.present = true;
    entrant.capacity = std::max(0, std::min(per_bot_, bot->max_matches() - bot->running_matches()));
  }
}

std::vector<Participant> LadderFormat::Joined() {
  std::vector<Participant> joined;
  for (; joined_told_ < entrants_.size(); ++joined_told_) {
    joined.push_back(entrants_[joined_told_].participant);
  }
  return joined;
}

std::vector<ScheduledMatch> LadderFormat::Next() {
  std::vector<ScheduledMatch> slots;
  if (done_) return slots;
  // Joined() must have told the runner of every entrant it may seat.
  const int told = static_cast<int>(joined_told_);
  while (tables_in_flight_ < concurrency_) {
    std::vector<int> available;
    for (int e = 0; e < told; ++e) {
      if (entrants_[e].present && entrants_[e].in_flight < entrants_[e].capacity) {
        available.push_back(e);
      }
    }
    std::vector<int> table = matchmaker_.Next(available);
    if (table.empty()) break;
    ScheduledMatch slot;
    slot.index = next_index_++;
    slot.seats = std::move(table);
    slot.seed = LadderDealSeed(seed_, slot.index);
    slot.block = slot.index;
    for (int e : slot.seats) ++entrants_[e].in_flight;
    ++tables_in_flight_;
    slots.push_back(std::move(slot));
  }
  return slots;
}

void LadderFormat::Ended(const ScheduledMatch& slot) {
  for (int e : slot.seats) {
    if (e < static_cast<int>(entrants_.size()) && entrants_[e].in_flight > 0) {
      --entrants_[e].in_flight;
    }
  }
  if (tables_in_flight_ > 0) --tables_in_flight_;
}

void LadderFormat::Stored(const ScheduledMatch& slot, const std::vector<db::RatedSeat>& seats) {
  Ended(slot);
  std::vector<int> ranks;
  for (const db::RatedSeat& seat : seats) ranks.push_back(seat.rank);
  if (ranks.size() == slot.seats.size() && ranks.size() >= 2) matchmaker_.Add(slot.seats, ranks);
  Evaluate(slot.index);
}

absl::Status LadderFormat::StoredElsewhere(const ScheduledMatch& slot) {
  // A ladder is run whole by one server at a time: another server's slot of
  // the same number means two ran it at once.
  Ended(slot);
  return absl::AbortedError(absl::StrCat("slot ", slot.index,
                                         " of the ladder was stored by another server; the "
                                         "ladder goes on where that server runs it"));
}

void LadderFormat::Lost(const ScheduledMatch& slot) { Ended(slot); }

}  // namespace hoard::tournament
