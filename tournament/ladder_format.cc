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
  listed_ = static_cast<int>(entrants_.size());
  joined_told_ = entrants_.size();
  matchmaker_.Grow(static_cast<int>(entrants_.size()));
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
  }
  if (!done.empty()) next_index_ = *done.rbegin() + 1;
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
  if (!open_) return;
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

std::vector<std::string> LadderFormat::present() const {
  std::vector<std::string> labels;
  for (const Entrant& entrant : entrants_) {
    if (entrant.present) labels.push_back(entrant.label);
  }
  return labels;
}

std::vector<ScheduledMatch> LadderFormat::Next() {
  std::vector<ScheduledMatch> slots;
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
