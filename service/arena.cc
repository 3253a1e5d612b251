#include "service/arena.h"

#include <sys/random.h>

#include <algorithm>
#include <future>
#include <iostream>
#include <iterator>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "engine/clip.h"
#include "engine/player_id.h"
#include "engine/record_json.h"
#include "engine/record_views.h"
#include "engine/registry.h"
#include "engine/seed_commitment.h"
#include "engine/status_macros.h"
#include "tournament/match_request.h"
#include "tournament/secrets.h"

namespace hoard::service {
namespace {

constexpr int kMaxKeyLength = 256;
// The most ladders one registration joins.
constexpr int kMaxLaddersPerBot = 16;

// Ladder names as a bot gives them (Register.ladders, Ladders.names).
absl::Status CheckLadderNames(const google::protobuf::RepeatedPtrField<std::string>& names) {
  if (names.size() > kMaxLaddersPerBot) {
    return absl::InvalidArgumentError(
        absl::StrCat("a bot joins at most ", kMaxLaddersPerBot, " ladders, not ", names.size()));
  }
  for (const std::string& ladder : names) {
    if (absl::Status s = engine::CheckBotNameWord(ladder); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("ladder '", engine::Clip(ladder), "': ", s.message()));
    }
  }
  return absl::OkStatus();
}
constexpr int kDefaultPageSize = 50;
constexpr int kMaxPageSize = 500;
// ListMatches' page tokens: the matches older than a sequence, or newer.
constexpr absl::string_view kOlderToken = "older:";
constexpr absl::string_view kNewerToken = "newer:";

absl::Status CheckEventDelivery(int events) {
  if (hoard::v1::EventDelivery_IsValid(events)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("events: ", events,
                   " is not an EventDelivery (0 to 3: unspecified, stream, "
                   "in requests, none)"));
}

}  // namespace

Arena::Arena(ArenaLimits limits) : limits_(limits), accounts_(limits.max_bot_accounts) {
  challenges_ = std::make_unique<ChallengeBoard>(
      &timers_,
      ChallengeBoard::Hooks{
          .connection_of = [this](const std::string& bot) -> std::shared_ptr<Connection> {
            absl::MutexLock lock(&mu_);
            auto it = bots_.find(bot);
            if (it == bots_.end() || it->second.connection == nullptr ||
                !it->second.connection->open()) {
              return nullptr;
            }
            return it->second.connection;
          },
          // A challenge's match counts against its challenger's matches, as
          // a creator's.
          .start =
              [this](const hoard::v1::CreateMatchRequest& request) -> absl::StatusOr<std::string> {
            absl::StatusOr<hoard::v1::CreateMatchResponse> created =
                CreateMatch(request, {}, absl::StrCat("bot:", request.seats(0).bot()));
            if (!created.ok()) return created.status();
            return created->match_id();
          }});
}

absl::Status Arena::UseStore(std::unique_ptr<db::MatchStore> store, db::StoreWriterOptions writer) {
  RETURN_IF_ERROR(accounts_.UseStore(store.get()));
  store->SetCommitObserver(
      [this](absl::Duration took, int matches) { metrics_.ObserveStoreWrite(took, matches); });
  if (events_) {
    for (const std::string& notice : store->notices())
      events_("store_notice", {{"message", notice}});
  }
  // Said once, loudly: from then on new matches are refused (CheckRoom) and
  // each result is kept in the spill file, its own match_not_stored says so.
  writer.on_store_lost = [this](const absl::Status& why) {
    if (events_) events_("store_lost", {{"error", std::string(why.message())}});
  };
  ASSIGN_OR_RETURN(writer_, db::StoreWriter::Open(
                                store.get(), std::move(writer),
                                [this](const std::string& id, const db::ResultOutcome& outcome) {
                                  OnStoreOutcome(id, outcome);
                                }));
  absl::MutexLock lock(&mu_);
  store_ = std::move(store);
  return absl::OkStatus();
}

Arena::~Arena() {
  // Decisions under way end while everything they may touch is here.
  thinkers_.Stop();
  timers_.Stop();
  // A last chance for what waits for the store; the server flushes first.
  if (writer_) writer_->Close(absl::Seconds(10));
}

int Arena::connected_bots() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(std::count_if(bots_.begin(), bots_.end(), [](const auto& entry) {
    return entry.second.connection != nullptr;
  }));
}

hoard::v1::ListGamesResponse Arena::ListGames() const {
  hoard::v1::ListGamesResponse response;
  for (const engine::Game* game : engine::AllGames()) {
    if (!engine::FindCodec(game->info().id).ok()) continue;
    const engine::GameInfo& info = game->info();
    hoard::v1::GameInfo* out = response.add_games();
    out->set_id(info.id);
    out->set_name(info.name);
    out->set_min_players(info.min_players);
    out->set_max_players(info.max_players);
    out->set_ruleset_version(info.ruleset_version);
    for (const engine::GameOption& option : info.options) {
      hoard::v1::GameOption* o = out->add_options();
      o->set_name(option.name);
      o->set_default_value(option.default_value);
      o->set_description(option.description);
    }
    for (const std::string& bot : bots::BuiltinBotNames(*game)) {
      out->add_builtin_bots(bot);
    }
  }
  return response;
}

namespace {

// Who plays seat `seat` as `spec` asks: a built-in bot (made here, seeded
// from `bot_seeds`), a registered bot, or an open seat with a fresh token.
absl::StatusOr<SeatPlayer> SeatPlayerFor(const hoard::v1::SeatSpec& spec, int seat,
                                         const engine::Game& game, engine::Rng& bot_seeds) {
  SeatPlayer player;
  switch (spec.player_case()) {
    case hoard::v1::SeatSpec::kBuiltin: {
      player.kind = SeatPlayer::Kind::kBuiltin;
      player.name = spec.builtin();
      ASSIGN_OR_RETURN(player.builtin, bots::MakeBot(spec.builtin(), game, bot_seeds.Fork()));
      return player;
    }
    case hoard::v1::SeatSpec::kBot:
      player.kind = SeatPlayer::Kind::kBot;
      player.name = spec.bot();
      return player;
    case hoard::v1::SeatSpec::kOpen:
      player.kind = SeatPlayer::Kind::kOpen;
      player.token = tournament::RandomToken();
      return player;
    case hoard::v1::SeatSpec::PLAYER_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("seat ", seat, " names no player: set builtin, bot or open"));
}

}  // namespace

absl::StatusOr<Arena::PreparedMatch> Arena::PrepareMatch(
    const hoard::v1::CreateMatchRequest& request) {
  if (request.game().empty()) {
    return absl::InvalidArgumentError("the request names no game");
  }
  RETURN_IF_ERROR(tournament::CheckClientStrings(request.game(), request.options()));
  ASSIGN_OR_RETURN(const engine::Game* game, engine::FindGame(request.game()));
  ASSIGN_OR_RETURN(const engine::GameCodec* codec, engine::FindCodec(request.game()));
  ASSIGN_OR_RETURN(const tournament::TimeControl time_control,
                   tournament::TimeControlFrom(request.time_control()));

  PreparedMatch prepared;
  MatchSetup& setup = prepared.setup;
  setup.game = game;
  setup.codec = codec;
  setup.time_control = time_control;
  setup.sealed = request.sealed();
  setup.unrated = request.unrated();
  setup.thinkers = &thinkers_;
  setup.config.num_players = request.seats_size();
  setup.config.seed = request.seed() != 0 ? request.seed() : tournament::RandomSeed();
  setup.seed_salt = engine::NewSeedSalt();
  setup.config.options.insert(request.options().begin(), request.options().end());
  ASSIGN_OR_RETURN(prepared.state, game->NewMatch(setup.config));

  engine::Rng bot_seeds(setup.config.seed ^ 0x5eed5eed5eed5eedULL);
  for (int seat = 0; seat < request.seats_size(); ++seat) {
    ASSIGN_OR_RETURN(SeatPlayer player, SeatPlayerFor(request.seats(seat), seat, *game, bot_seeds));
    if (player.kind == SeatPlayer::Kind::kBot) ++prepared.bot_seats[player.name];
    setup.seats.push_back(std::move(player));
  }
  return prepared;
}

absl::Status Arena::CheckRoom(const std::string& creator,
                              const std::map<std::string, int>& bot_seats) {
  if (shutting_down_) {
    return absl::UnavailableError("the server is shutting down and starts no new matches");
  }
  if (running_ >= limits_.max_running_matches) {
    return absl::ResourceExhaustedError(
        absl::StrCat("the server already runs ", running_, " matches, its limit (--max-matches)"));
  }
  // Results are never dropped for room: new matches wait for the store.
  if (writer_) RETURN_IF_ERROR(writer_->CheckRoom());
  if (!creator.empty() && running_by_creator_[creator] >= limits_.max_matches_per_creator) {
    return absl::ResourceExhaustedError(
        absl::StrCat("this token already runs ", running_by_creator_[creator],
                     " matches, its limit (--max-matches-per-creator)"));
  }
  for (const auto& [name, seats] : bot_seats) {
    // A revoked bot may still be finishing matches: the account decides.
    if (!accounts_.Exists(name)) {
      return absl::NotFoundError(absl::StrCat("no bot account '", engine::Clip(name), "'"));
    }
    auto it = bots_.find(name);
    if (it == bots_.end()) {
      // Not connected now: its seats wait for it.
      it = bots_.emplace(name, RegisteredBot{}).first;
    }
    if (it->second.running >= it->second.max_matches) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "bot '", name, "' already plays ", it->second.running,
          " matches, its limit (--max-matches-per-bot, or the max_matches it registered with)"));
    }
  }
  return absl::OkStatus();
}

std::shared_ptr<HostedMatch> Arena::Admit(PreparedMatch prepared, std::int64_t sequence,
                                          MatchHooks hooks, const std::string& creator,
                                          hoard::v1::CreateMatchResponse& response) {
  MatchSetup& setup = prepared.setup;
  setup.id = absl::StrCat("m", sequence);
  setup.sequence = sequence;
  response.set_match_id(setup.id);
  response.set_seed(setup.config.seed);
  response.set_seed_commitment(engine::SeedCommitment(setup.config.seed, setup.seed_salt));
  std::vector<std::pair<engine::Seat, std::shared_ptr<Connection>>> to_attach;
  for (int seat = 0; seat < static_cast<int>(setup.seats.size()); ++seat) {
    const SeatPlayer& player = setup.seats[seat];
    if (player.kind == SeatPlayer::Kind::kOpen) {
      tokens_[player.token] = {setup.id, seat};
      tokens_of_[setup.id].push_back(player.token);
      hoard::v1::SeatToken* token = response.add_seat_tokens();
      token->set_seat(seat);
      token->set_token(player.token);
    } else if (player.kind == SeatPlayer::Kind::kBot) {
      const RegisteredBot& bot = bots_[player.name];
      if (bot.connection) {
        to_attach.emplace_back(seat, bot.connection);
        held_[bot.connection.get()].insert(setup.id);
      }
    }
  }
  for (const auto& [name, seats] : prepared.bot_seats) ++bots_[name].running;
  setup.metrics = &metrics_.Game(setup.game->info().id);
  setup.metrics->started.fetch_add(1, std::memory_order_relaxed);
  const std::string id = setup.id;
  auto match = std::make_shared<HostedMatch>(std::move(setup), std::move(prepared.state), &timers_,
                                             [this, id] { OnMatchFinished(id); });
  matches_[sequence] = match;
  by_id_[id] = match;
  if (hooks.on_finished || hooks.on_flawed_answer || !hooks.store) {
    hooks_[id] = std::move(hooks);
  }
  if (!creator.empty()) {
    creator_of_[id] = creator;
    ++running_by_creator_[creator];
  }
  ++running_;
  // Seated under the lock: no registration can move the bot in between.
  for (auto& [seat, connection] : to_attach) match->Attach(seat, connection);
  return match;
}

void Arena::LogMatchStarted(const HostedMatch& match, const std::string& game,
                            const std::string& creator) {
  if (!events_) return;
  std::vector<std::string> players;
  const hoard::v1::Match described = match.Describe();
  for (const hoard::v1::SeatInfo& seat : described.seats()) {
    players.push_back(seat.player());
  }
  LogFields fields = {
      {"match", match.id()}, {"game", game}, {"seats", absl::StrJoin(players, ",")}};
  if (!creator.empty()) fields.push_back({"creator", creator});
  events_("match_started", fields);
}

absl::StatusOr<std::int64_t> Arena::NextSequenceLocked() {
  // With a store, ids come from the blocks it reserves; without, the arena
  // numbers its matches itself.
  if (writer_) return writer_->NextSequence();
  return next_sequence_++;
}

absl::StatusOr<hoard::v1::CreateMatchResponse> Arena::CreateMatch(
    const hoard::v1::CreateMatchRequest& request, MatchHooks hooks, const std::string& creator) {
  ASSIGN_OR_RETURN(PreparedMatch prepared, PrepareMatch(request));
  return Host(std::move(prepared), std::move(hooks), creator);
}

absl::StatusOr<hoard::v1::CreateMatchResponse> Arena::Host(PreparedMatch prepared, MatchHooks hooks,
                                                           const std::string& creator) {
  const std::string& game = prepared.setup.game->info().id;
  hoard::v1::CreateMatchResponse response;
  std::shared_ptr<HostedMatch> match;
  {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(CheckRoom(creator, prepared.bot_seats));
    ASSIGN_OR_RETURN(const std::int64_t sequence, NextSequenceLocked());
    match = Admit(std::move(prepared), sequence, std::move(hooks), creator, response);
  }
  LogMatchStarted(*match, game, creator);
  match->Start();
  return response;
}

absl::StatusOr<EndedMatch> Arena::PlayToEnd(const hoard::v1::CreateMatchRequest& request) {
  ASSIGN_OR_RETURN(PreparedMatch prepared, PrepareMatch(request));
  const std::vector<SeatPlayer>& seats = prepared.setup.seats;
  const bool at_once = std::all_of(seats.begin(), seats.end(), [](const SeatPlayer& player) {
    return player.kind == SeatPlayer::Kind::kBuiltin && player.builtin->Instant();
  });
  return at_once ? PlayThrough(std::move(prepared)) : HostAndWait(std::move(prepared));
}

absl::StatusOr<EndedMatch> Arena::HostAndWait(PreparedMatch prepared) {
  auto done = std::make_shared<std::promise<EndedMatch>>();
  std::future<EndedMatch> finished = done->get_future();
  MatchHooks hooks;
  hooks.store = false;
  hooks.on_finished = [done](hoard::v1::Match match, hoard::v1::MatchRecord record) {
    EndedMatch ended{.match = std::move(match), .record = std::move(record)};
    // The arena numbers its matches "m<sequence>".
    absl::SimpleAtoi(absl::string_view(ended.match.match_id()).substr(1), &ended.sequence);
    done->set_value(std::move(ended));
  };
  RETURN_IF_ERROR(Host(std::move(prepared), std::move(hooks), /*creator=*/"").status());
  EndedMatch ended = finished.get();
  if (ended.match.status() != hoard::v1::MATCH_STATUS_FINISHED) {
    return absl::AbortedError(
        absl::StrCat("match ", ended.match.match_id(), " was aborted: the server is stopping"));
  }
  return ended;
}

absl::StatusOr<EndedMatch> Arena::PlayThrough(PreparedMatch prepared) {
  MatchSetup& setup = prepared.setup;
  {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(CheckRoom(/*creator=*/"", prepared.bot_seats));
    ASSIGN_OR_RETURN(setup.sequence, NextSequenceLocked());
  }
  const std::string game = setup.game->info().id;
  setup.id = absl::StrCat("m", setup.sequence);
  setup.thinkers = nullptr;  // decided here, one after another
  setup.played_through = true;
  GameMetrics& metrics = metrics_.Game(game);
  setup.metrics = &metrics;
  metrics.started.fetch_add(1, std::memory_order_relaxed);
  // Never admitted: nobody can join, watch or abort it, and it has no
  // time-outs that would hold it.
  HostedMatch match(std::move(setup), std::move(prepared.state), &timers_, nullptr);
  LogMatchStarted(match, game, /*creator=*/"");
  match.Start();
  EndedMatch ended{.match = match.Describe(), .sequence = match.sequence()};
  if (std::optional<engine::MatchRecord> compact = match.CompactRecord()) {
    ended.record = engine::RecordToProto(*compact);
  }
  metrics.builtin_decisions.fetch_add(ended.match.actions(), std::memory_order_relaxed);
  metrics.finished.fetch_add(1, std::memory_order_relaxed);
  if (events_) {
    LogFields fields = EndFields(ended.match);
    if (writer_ != nullptr) {
      // Logged when its caller has stored it (OnStoredByCaller).
      absl::MutexLock lock(&mu_);
      end_events_[match.id()] = {"match_finished", std::move(fields)};
    } else {
      fields.push_back({"stored", "no"});
      events_("match_finished", fields);
    }
  }
  return ended;
}

FlawedAnswerHook Arena::FindFlawedAnswerHook(const std::string& match_id) {
  absl::MutexLock lock(&mu_);
  auto it = hooks_.find(match_id);
  return it == hooks_.end() ? nullptr : it->second.on_flawed_answer;
}

void Arena::OnMatchFinished(const std::string& match_id) {
  std::shared_ptr<HostedMatch> match = FindMatch(match_id);
  if (!match) return;
  MatchHooks hooks;
  {
    absl::MutexLock lock(&mu_);
    if (auto it = hooks_.find(match_id); it != hooks_.end()) {
      hooks = std::move(it->second);
      hooks_.erase(it);
    }
  }
  const bool store = writer_ != nullptr && hooks.store;
  hoard::v1::Match described = match->Describe();
  // An aborted match has no record (nor scores): only its summary is kept.
  hoard::v1::MatchRecord record;
  if (store || hooks.on_finished) {
    // Kept compact: what a reader asks for is expanded when read.
    if (std::optional<engine::MatchRecord> compact = match->CompactRecord()) {
      record = engine::RecordToProto(*compact);
    }
  }
  const bool aborted = described.status() == hoard::v1::MATCH_STATUS_ABORTED;
  LogFields fields = EndFields(described);
  const std::string event = aborted ? "match_aborted" : "match_finished";
  // Logged when its caller has stored it (OnStoredByCaller).
  const bool caller_stores = !store && writer_ != nullptr && !aborted && hooks.on_finished;
  if (caller_stores) {
    absl::MutexLock lock(&mu_);
    end_events_[match_id] = {event, fields};
  }
  if (store) {
    // Logged when the writer has stored it (or given up).
    {
      absl::MutexLock lock(&mu_);
      end_events_[match_id] = {event, std::move(fields)};
    }
    writer_->Add({.sequence = match->sequence(),
                  .match = described,
                  .record = hooks.on_finished ? record : std::move(record)});
  }
  ReleaseFinished(match_id, described,
                  store                ? Afterwards::kAwaitStore
                  : writer_ != nullptr ? Afterwards::kForget  // its caller stores it
                                       : Afterwards::kKeepInMemory);
  if (!store && !caller_stores && events_) {
    fields.push_back({"stored", "no"});
    events_(event, fields);
  }
  if (hooks.on_finished) hooks.on_finished(std::move(described), std::move(record));
}

LogFields Arena::EndFields(const hoard::v1::Match& described) {
  std::vector<std::string> ranks, faults;
  for (const hoard::v1::SeatInfo& seat : described.seats()) {
    ranks.push_back(absl::StrCat(seat.rank()));
    if (seat.timeouts() > 0 || seat.illegal_answers() > 0 || seat.forfeited()) {
      faults.push_back(absl::StrCat("seat", seat.seat(), ":", seat.timeouts(), "t/",
                                    seat.illegal_answers(), "i",
                                    seat.forfeited() ? "/forfeit" : ""));
    }
  }
  LogFields fields = {{"match", described.match_id()},
                      {"game", described.game()},
                      {"actions", absl::StrCat(described.actions())}};
  if (described.status() != hoard::v1::MATCH_STATUS_ABORTED) {
    fields.push_back({"ranks", absl::StrJoin(ranks, ",")});
  }
  if (!faults.empty()) fields.push_back({"faults", absl::StrJoin(faults, ",")});
  return fields;
}

void Arena::OnStoreOutcome(const std::string& match_id, const db::ResultOutcome& outcome) {
  std::pair<std::string, LogFields> end;
  {
    absl::MutexLock lock(&mu_);
    if (auto it = by_id_.find(match_id); it != by_id_.end()) {
      if (outcome.kind == db::ResultOutcome::Kind::kStored) {
        // GetMatch and ListMatches read it from the store from now on.
        matches_.erase(it->second->sequence());
        by_id_.erase(it);
      } else {
        KeepInMemory(match_id);
      }
    }
    if (auto it = end_events_.find(match_id); it != end_events_.end()) {
      end = std::move(it->second);
      end_events_.erase(it);
    }
  }
  if (!events_ || end.first.empty()) return;
  LogFields& fields = end.second;
  if (outcome.kind == db::ResultOutcome::Kind::kStored) {
    fields.push_back({"stored", "yes"});
    events_(end.first, fields);
    return;
  }
  // Not stored: said as loudly as the end itself, with why and where it is kept.
  fields.push_back({"status", end.first == "match_aborted" ? "aborted" : "finished"});
  fields.push_back({"stored", "no"});
  fields.push_back({"reason", std::string(outcome.error.message())});
  fields.push_back({"kept", outcome.kind == db::ResultOutcome::Kind::kSpilled ? outcome.spill_path
                                                                              : "no (lost)"});
  events_("match_not_stored", fields);
}

void Arena::OnStoredByCaller(const std::string& match_id, const absl::Status& saved) {
  std::pair<std::string, LogFields> end;
  {
    absl::MutexLock lock(&mu_);
    auto it = end_events_.find(match_id);
    if (it == end_events_.end()) return;
    end = std::move(it->second);
    end_events_.erase(it);
  }
  if (!events_) return;
  LogFields& fields = end.second;
  if (saved.ok() || saved.code() == absl::StatusCode::kAlreadyExists) {
    // Already there: another server of the tournament stored its slot.
    fields.push_back({"stored", saved.ok() ? "yes" : "yes (by another server)"});
    events_(end.first, fields);
    return;
  }
  fields.push_back({"status", "finished"});
  fields.push_back({"stored", "no"});
  fields.push_back({"reason", std::string(saved.message())});
  fields.push_back({"kept", "no: its tournament plays the slot again when it resumes"});
  events_("match_not_stored", fields);
}

int Arena::FlushStore(absl::Duration timeout) { return writer_ ? writer_->Close(timeout) : 0; }

void Arena::BeginShutdown() {
  absl::MutexLock lock(&mu_);
  shutting_down_ = true;
}

int Arena::AbortRunning() {
  std::vector<std::shared_ptr<HostedMatch>> running;
  {
    absl::ReaderMutexLock lock(&mu_);
    for (const auto& [sequence, match] : matches_) {
      if (!match->IsOver()) running.push_back(match);
    }
  }
  // Each abort ends in OnMatchFinished, which takes mu_: not held here.
  int aborted = 0;
  for (const std::shared_ptr<HostedMatch>& match : running) {
    if (match->Abort()) ++aborted;
  }
  return aborted;
}

void Arena::ReleaseFinished(const std::string& match_id, const hoard::v1::Match& described,
                            Afterwards afterwards) {
  GameMetrics& game = metrics_.Game(described.game());
  (described.status() == hoard::v1::MATCH_STATUS_ABORTED ? game.aborted : game.finished)
      .fetch_add(1, std::memory_order_relaxed);
  absl::MutexLock lock(&mu_);
  --running_;
  if (auto it = creator_of_.find(match_id); it != creator_of_.end()) {
    if (--running_by_creator_[it->second] <= 0) running_by_creator_.erase(it->second);
    creator_of_.erase(it);
  }
  std::set<std::string> counted;
  for (const hoard::v1::SeatInfo& seat : described.seats()) {
    absl::StatusOr<engine::PlayerId> player = engine::PlayerId::Parse(seat.player());
    if (player.ok() && player->is_bot() && counted.insert(player->name()).second) {
      auto it = bots_.find(player->name());
      if (it == bots_.end()) continue;
      --it->second.running;
      if (it->second.running <= 0 && it->second.connection == nullptr) bots_.erase(it);
    }
  }
  // Its seat tokens join nothing any more, and no stream holds it.
  if (auto it = tokens_of_.find(match_id); it != tokens_of_.end()) {
    for (const std::string& token : it->second) tokens_.erase(token);
    tokens_of_.erase(it);
  }
  for (auto& [connection, held] : held_) held.erase(match_id);
  watchers_.erase(match_id);
  switch (afterwards) {
    case Afterwards::kKeepInMemory:
      KeepInMemory(match_id);
      break;
    case Afterwards::kAwaitStore:  // until the writer reports
      break;
    case Afterwards::kForget:
      if (auto it = by_id_.find(match_id); it != by_id_.end()) {
        matches_.erase(it->second->sequence());
        by_id_.erase(it);
      }
      break;
  }
}

void Arena::KeepInMemory(const std::string& match_id) {
  // Only matches released here go: another may have ended and still be on
  // its way to this function.
  if (auto it = by_id_.find(match_id); it != by_id_.end()) {
    finished_.push_back(it->second->sequence());
  }
  while (finished_.size() > static_cast<std::size_t>(limits_.max_finished_in_memory)) {
    if (auto it = matches_.find(finished_.front()); it != matches_.end()) {
      by_id_.erase(it->second->id());
      matches_.erase(it);
    }
    finished_.pop_front();
  }
}

hoard::v1::ListBotsResponse Arena::ListBots() const {
  hoard::v1::ListBotsResponse response;
  const std::vector<std::string> names = accounts_.Names();
  absl::ReaderMutexLock lock(&mu_);
  for (const std::string& name : names) {
    hoard::v1::BotInfo* info = response.add_bots();
    info->set_name(name);
    auto it = bots_.find(name);
    if (it == bots_.end()) continue;
    const RegisteredBot& bot = it->second;
    info->set_connected(bot.connection != nullptr && bot.connection->open());
    info->set_running_matches(bot.running);
    info->set_max_matches(bot.max_matches);
    if (info->connected()) {
      for (const std::string& ladder : bot.ladders) info->add_ladders(ladder);
    }
  }
  return response;
}

absl::StatusOr<hoard::v1::AddBotResponse> Arena::AddBot(const hoard::v1::AddBotRequest& request,
                                                        bool launched) {
  RETURN_IF_ERROR(engine::CheckBotName(request.name()));
  if (request.key().size() > kMaxKeyLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("a bot key has at most ", kMaxKeyLength, " characters"));
  }
  hoard::v1::AddBotResponse response;
  response.set_name(request.name());
  response.set_key(request.key().empty() ? tournament::RandomToken() : request.key());
  RETURN_IF_ERROR(accounts_.Add(request.name(), response.key(), request.replace(), launched));
  // A stream that registered with the old key speaks for the bot no more.
  DisconnectBot(request.name(), absl::UnauthenticatedError(absl::StrCat("bot '", request.name(),
                                                                        "' was given a new key")));
  if (events_) events_("bot_added", {{"bot", request.name()}});
  return response;
}

absl::StatusOr<hoard::v1::RevokeBotResponse> Arena::RevokeBot(
    const hoard::v1::RevokeBotRequest& request) {
  RETURN_IF_ERROR(accounts_.Remove(request.name()));
  hoard::v1::RevokeBotResponse response;
  response.set_name(request.name());
  response.set_streams_closed(DisconnectBot(
      request.name(),
      absl::UnauthenticatedError(absl::StrCat("bot '", request.name(), "' was revoked"))));
  if (events_) events_("bot_revoked", {{"bot", request.name()}});
  return response;
}

int Arena::DisconnectBot(const std::string& name, const absl::Status& why) {
  std::shared_ptr<Connection> connection;
  {
    absl::MutexLock lock(&mu_);
    auto it = bots_.find(name);
    if (it == bots_.end() || it->second.connection == nullptr) return 0;
    connection = it->second.connection;
  }
  connection->End(why);
  OnStreamClosed(connection);
  return 1;
}

void Arena::ExpectHello(const std::shared_ptr<Connection>& connection) {
  std::weak_ptr<Connection> weak = connection;
  const int timeout_ms = limits_.hello_timeout_ms;
  timers_.Schedule(SteadyClock::now() + std::chrono::milliseconds(timeout_ms), [weak, timeout_ms] {
    std::shared_ptr<Connection> connection = weak.lock();
    if (connection && !connection->identified() && !connection->greeted()) {
      connection->End(absl::DeadlineExceededError(
          absl::StrCat("no hello within ", timeout_ms, " ms (--hello-timeout-ms)")));
    }
  });
}

std::shared_ptr<HostedMatch> Arena::FindMatch(const std::string& id) const {
  absl::ReaderMutexLock lock(&mu_);
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : it->second;
}

bool Arena::Unsealed(const hoard::v1::Match& match) const {
  return tournament::SealLifted(match, store_.get());
}

absl::StatusOr<hoard::v1::GetMatchResponse> Arena::GetMatch(
    const hoard::v1::GetMatchRequest& request, bool admin) const {
  hoard::v1::GetMatchResponse response;
  if (std::shared_ptr<HostedMatch> match = FindMatch(request.match_id())) {
    *response.mutable_match() = match->Describe();
    if (std::shared_ptr<const engine::MatchRecord> record = match->Record()) {
      *response.mutable_record() = engine::RecordToProto(*record);
    }
  } else {
    std::optional<db::StoredMatch> stored;
    if (store_ != nullptr) {
      ASSIGN_OR_RETURN(stored, store_->Get(request.match_id()));
    }
    if (!stored) {
      return absl::NotFoundError(absl::StrCat("no match '", engine::Clip(request.match_id()), "'"));
    }
    ASSIGN_OR_RETURN(std::optional<hoard::v1::MatchRecord> record,
                     store_->GetRecord(request.match_id()));
    *response.mutable_match() = std::move(stored->match);
    if (record) *response.mutable_record() = std::move(*record);
  }
  if (!admin && !Unsealed(response.match())) {
    tournament::HideDeal(*response.mutable_match());
    response.clear_record();
  }
  return response;
}

absl::StatusOr<hoard::v1::ReplayMatchResponse> Arena::ReplayMatch(
    const hoard::v1::ReplayMatchRequest& request, bool admin) const {
  hoard::v1::GetMatchRequest get;
  get.set_match_id(request.match_id());
  ASSIGN_OR_RETURN(hoard::v1::GetMatchResponse got, GetMatch(get, admin));
  if (!got.has_record()) {
    return absl::FailedPreconditionError(
        absl::StrCat("match ", got.match().match_id(), " has no record to replay: ",
                     got.match().status() == hoard::v1::MATCH_STATUS_RUNNING ? "it is still running"
                     : got.match().status() == hoard::v1::MATCH_STATUS_ABORTED
                         ? "it was aborted"
                         : "it is sealed until its tournament is over"));
  }
  ASSIGN_OR_RETURN(engine::MatchRecord record, engine::RecordFromProto(got.record()));
  ASSIGN_OR_RETURN(
      hoard::v1::ReplayMatchResponse replay,
      engine::ReplayViews(
          record, request.has_seat() ? request.seat() : engine::kSpectator,
          request.changes_only() ? engine::ReplayForm::kChanges : engine::ReplayForm::kViews));
  replay.set_match_id(got.match().match_id());
  return replay;
}

absl::StatusOr<std::map<std::int64_t, hoard::v1::Match>> Arena::MatchesFrom(
    const hoard::v1::ListMatchesRequest& request, std::int64_t from, bool older, int limit) const {
  // The `limit` matches nearest `from` of those kept in memory, and as many
  // of those in the store: the nearest of both are among them.
  std::vector<std::pair<std::int64_t, std::shared_ptr<HostedMatch>>> candidates;
  {
    absl::MutexLock lock(&mu_);
    if (older) {
      auto end = from == 0 ? matches_.end() : matches_.lower_bound(from);
      for (auto it = std::make_reverse_iterator(end); it != matches_.rend(); ++it) {
        candidates.emplace_back(it->first, it->second);
      }
    } else {
      for (auto it = matches_.upper_bound(from); it != matches_.end(); ++it) {
        candidates.emplace_back(it->first, it->second);
      }
    }
  }
  std::map<std::int64_t, hoard::v1::Match> found;
  for (const auto& [sequence, match] : candidates) {
    if (static_cast<int>(found.size()) >= limit) break;
    if (!request.game().empty() && match->game_id() != request.game()) continue;
    if (!request.bot().empty() && !match->HasBot(request.bot())) continue;
    hoard::v1::Match described = match->Describe();
    if (request.status() != hoard::v1::MATCH_STATUS_UNSPECIFIED &&
        described.status() != request.status()) {
      continue;
    }
    found.emplace(sequence, std::move(described));
  }
  // The store keeps matches that are over: finished or aborted.
  if (store_ != nullptr && request.status() != hoard::v1::MATCH_STATUS_RUNNING) {
    const db::MatchFilter filter{
        .game = request.game(), .bot = request.bot(), .status = request.status()};
    ASSIGN_OR_RETURN(
        std::vector<db::StoredMatch> stored,
        older ? store_->ListNewest(from, limit, filter) : store_->List(from, limit, filter));
    for (db::StoredMatch& match : stored) found.try_emplace(match.sequence, std::move(match.match));
  }
  // The nearest `limit`.
  while (static_cast<int>(found.size()) > limit) {
    found.erase(older ? found.begin() : std::prev(found.end()));
  }
  return found;
}

absl::StatusOr<hoard::v1::ListMatchesResponse> Arena::ListMatches(
    const hoard::v1::ListMatchesRequest& request, bool admin) const {
  if (request.page_size() < 0) {
    return absl::InvalidArgumentError("page_size must not be negative");
  }
  const int page_size =
      request.page_size() == 0 ? kDefaultPageSize : std::min(request.page_size(), kMaxPageSize);
  // Tokens: "older:S", the matches created before match sequence S, and
  // "newer:S", those after it; no token, the newest.
  std::int64_t from = 0;
  bool older = true;
  if (!request.page_token().empty()) {
    absl::string_view token = request.page_token();
    older = absl::ConsumePrefix(&token, kOlderToken);
    if ((!older && !absl::ConsumePrefix(&token, kNewerToken)) || !absl::SimpleAtoi(token, &from) ||
        from <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "page_token '", engine::Clip(request.page_token()), "' is not one this server gave"));
    }
  }
  // One more than a page tells whether there is another that way.
  ASSIGN_OR_RETURN(auto found, MatchesFrom(request, from, older, page_size + 1));
  const bool more_that_way = static_cast<int>(found.size()) > page_size;
  if (more_that_way) found.erase(older ? found.begin() : std::prev(found.end()));
  hoard::v1::ListMatchesResponse response;
  if (found.empty()) return response;
  const std::int64_t newest = found.rbegin()->first;
  const std::int64_t oldest = found.begin()->first;
  // Whether there is a page the other way: on the newest page, none newer.
  bool more_back = false;
  if (from != 0) {
    ASSIGN_OR_RETURN(auto beyond, MatchesFrom(request, older ? newest : oldest, !older, 1));
    more_back = !beyond.empty();
  }
  if (older ? more_that_way : more_back) {
    response.set_next_page_token(absl::StrCat(kOlderToken, oldest));
  }
  if (older ? more_back : more_that_way) {
    response.set_newer_page_token(absl::StrCat(kNewerToken, newest));
  }
  for (auto it = found.rbegin(); it != found.rend(); ++it) {
    hoard::v1::Match& match = it->second;
    if (!admin && !Unsealed(match)) tournament::HideDeal(match);
    *response.add_matches() = std::move(match);
  }
  return response;
}

absl::Status Arena::WatchMatch(const hoard::v1::WatchMatchRequest& request,
                               std::shared_ptr<EventOutbox> watcher) {
  std::shared_ptr<HostedMatch> match = FindMatch(request.match_id());
  if (!match) {
    // Over and in the store only, or unknown (kNotFound): GetMatch says.
    hoard::v1::GetMatchRequest get;
    get.set_match_id(request.match_id());
    ASSIGN_OR_RETURN(hoard::v1::GetMatchResponse got, GetMatch(get, /*admin=*/true));
    // Unless it has only just been created: then it is watched as usual.
    match = FindMatch(request.match_id());
    if (!match) {
      TellEnd(std::move(got), *watcher);
      return absl::OkStatus();
    }
  }
  {
    absl::MutexLock lock(&mu_);
    int& count = watchers_[request.match_id()];
    if (count >= limits_.max_watchers_per_match) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "match ", request.match_id(), " already has ", count, " spectators, its limit"));
    }
    ++count;
  }
  match->Watch(std::move(watcher), request.from_start());
  return absl::OkStatus();
}

void Arena::TellEnd(hoard::v1::GetMatchResponse got, EventOutbox& watcher) const {
  hoard::v1::MatchEvent end;
  end.set_match_id(got.match().match_id());
  end.set_step(got.match().actions());
  // The spectator's view of the final table, derived from the record. An
  // aborted match has no record, and a record of another ruleset version
  // does not replay in this build: their events carry no view.
  if (got.has_record()) {
    absl::StatusOr<engine::MatchRecord> record = engine::RecordFromProto(got.record());
    if (record.ok()) {
      absl::StatusOr<hoard::v1::ReplayMatchResponse> replay =
          engine::ReplayViews(*record, engine::kSpectator);
      if (replay.ok() && replay->steps_size() > 0) {
        *end.mutable_view() = replay->steps(replay->steps_size() - 1).view();
      }
    }
  }
  // Whatever GetMatch tells anyone: a sealed match's deal only once its
  // seal is lifted.
  hoard::v1::Match& match = *got.mutable_match();
  if (!Unsealed(match)) tournament::HideDeal(match);
  hoard::v1::MatchEvent snapshot = end;
  *snapshot.mutable_snapshot()->mutable_match() = match;
  *end.mutable_finished()->mutable_match() = std::move(match);
  watcher.Send(snapshot);
  watcher.Send(end);
  watcher.Close();
}

void Arena::OnWatchEnded(const std::string& match_id) {
  absl::MutexLock lock(&mu_);
  auto it = watchers_.find(match_id);
  if (it != watchers_.end() && --it->second <= 0) watchers_.erase(it);
}

void Arena::SetEventSink(EventSink sink) {
  events_ = std::move(sink);
  timers_.OnStall([this](SteadyClock::duration stalled) {
    if (!events_) return;
    events_("server_stalled",
            {{"seconds", absl::StrFormat("%.1f", std::chrono::duration<double>(stalled).count())},
             {"note", "open decision deadlines are extended by the stall"}});
  });
}

void Arena::BeforeBotMessage(const std::shared_ptr<Connection>& connection,
                             const hoard::v1::BotMessage& message,
                             absl::AnyInvocable<void(absl::Status) &&> then) {
  if (connection->identified() || !message.has_hello() || !message.hello().has_register_()) {
    return std::move(then)(absl::OkStatus());
  }
  const hoard::v1::Register& request = message.hello().register_();
  // Register refuses a bad name or key itself, without a hash.
  if (!engine::CheckBotName(request.name()).ok() || request.key().empty() ||
      request.key().size() > kMaxKeyLength) {
    return std::move(then)(absl::OkStatus());
  }
  const bool create = limits_.open_registration;
  connection->set_greeted();
  if (accounts_.CheckQuickly(request.name(), request.key(), connection->address(), create)) {
    return std::move(then)(absl::OkStatus());  // Register finds the same at once
  }
  accounts_.CheckSlowly(request.name(), request.key(), connection->address(), create,
                        std::move(then));
}

absl::Status Arena::OnBotMessage(const std::shared_ptr<Connection>& connection,
                                 const hoard::v1::BotMessage& message,
                                 SteadyClock::time_point received, absl::Status checked) {
  if (!connection->identified()) {
    if (!message.has_hello()) {
      return absl::UnauthenticatedError(
          "the first message of a Play stream must be a hello (register or join)");
    }
    switch (message.hello().identity_case()) {
      case hoard::v1::Hello::kRegister: {
        absl::Status registered =
            checked.ok() ? Register(connection, message.hello().register_()) : checked;
        if (events_) {
          LogFields fields = {{"bot", engine::Clip(message.hello().register_().name())}};
          if (!registered.ok()) fields.push_back({"refused", std::string(registered.message())});
          events_(registered.ok() ? "bot_connected" : "bot_refused", fields);
        }
        return registered;
      }
      case hoard::v1::Hello::kJoin:
        return Join(connection, message.hello().join());
      case hoard::v1::Hello::IDENTITY_NOT_SET:
        break;
    }
    return absl::UnauthenticatedError("the hello carries no credentials: set register or join");
  }
  switch (message.kind_case()) {
    case hoard::v1::BotMessage::kAnswer: {
      const hoard::v1::Answer& answer = message.answer();
      std::shared_ptr<HostedMatch> match = FindMatch(answer.match_id());
      if (!match) {
        SendError(
            connection,
            absl::NotFoundError(absl::StrCat("no match '", engine::Clip(answer.match_id()), "'")),
            answer.match_id());
        return absl::OkStatus();
      }
      hoard::v1::ServerMessage reply;
      // A default is looked up first: it may end the match, and its hooks go.
      const bool by_default = answer.default_reason() != hoard::v1::DEFAULT_REASON_UNSPECIFIED;
      FlawedAnswerHook hook = by_default ? FindFlawedAnswerHook(answer.match_id()) : nullptr;
      *reply.mutable_answer_result() = match->Answer(connection.get(), answer, received);
      if (!reply.answer_result().accepted() && !hook) {
        hook = FindFlawedAnswerHook(answer.match_id());
      }
      if (hook && (by_default || !reply.answer_result().accepted())) {
        hook(answer, reply.answer_result());
      }
      if (!reply.answer_result().accepted() || connection->acknowledge_answers()) {
        connection->Send(std::move(reply));
      }
      return absl::OkStatus();
    }
    case hoard::v1::BotMessage::kJoin:
      if (absl::Status status = Join(connection, message.join()); !status.ok()) {
        SendError(connection, status, message.join().match_id());
      }
      return absl::OkStatus();
    case hoard::v1::BotMessage::kChallenge:
      challenges_->Challenge(connection, message.challenge());
      return absl::OkStatus();
    case hoard::v1::BotMessage::kChallengeAnswer:
      challenges_->Answer(connection, message.challenge_answer());
      return absl::OkStatus();
    case hoard::v1::BotMessage::kLadders:
      if (absl::Status status = SetLadders(connection, message.ladders()); !status.ok()) {
        SendError(connection, status, "");
      }
      return absl::OkStatus();
    case hoard::v1::BotMessage::kHello:
      SendError(connection,
                absl::FailedPreconditionError(
                    "this stream has already said hello; join more seats with join"),
                "");
      return absl::OkStatus();
    case hoard::v1::BotMessage::KIND_NOT_SET:
      break;
  }
  SendError(connection,
            absl::InvalidArgumentError("the message is empty: send an answer or a join"), "");
  return absl::OkStatus();
}

absl::Status Arena::SetLadders(const std::shared_ptr<Connection>& connection,
                               const hoard::v1::Ladders& ladders) {
  if (connection->bot().empty()) {
    return absl::FailedPreconditionError(
        "only a registered bot joins ladders (this stream joined by seat token)");
  }
  RETURN_IF_ERROR(CheckLadderNames(ladders.names()));
  absl::MutexLock lock(&mu_);
  auto it = bots_.find(connection->bot());
  // A stream the bot has left for another changes nothing.
  if (it == bots_.end() || it->second.connection != connection) return absl::OkStatus();
  it->second.ladders.assign(ladders.names().begin(), ladders.names().end());
  return absl::OkStatus();
}

absl::Status Arena::Register(const std::shared_ptr<Connection>& connection,
                             const hoard::v1::Register& request) {
  RETURN_IF_ERROR(engine::CheckBotName(request.name()));
  if (request.key().empty() || request.key().size() > kMaxKeyLength) {
    return absl::UnauthenticatedError(
        absl::StrCat("registering bot '", engine::Clip(request.name()), "' needs a key of 1 to ",
                     kMaxKeyLength, " characters"));
  }
  if (request.max_matches() < 0) {
    return absl::InvalidArgumentError("max_matches must not be negative");
  }
  RETURN_IF_ERROR(CheckEventDelivery(request.events()));
  RETURN_IF_ERROR(CheckLadderNames(request.ladders()));
  const int max_matches =
      std::min(request.max_matches() == 0 ? 1 : request.max_matches(), limits_.max_matches_per_bot);
  // The key is checked (slowly, the first time) before any lock is taken.
  if (absl::Status checked = accounts_.Check(request.name(), request.key(), connection->address());
      !checked.ok()) {
    if (!limits_.open_registration || accounts_.Exists(request.name())) return checked;
    // Open registration: the first registration of a name makes its account.
    absl::Status added = accounts_.Add(request.name(), request.key(), /*replace=*/false,
                                       /*launched=*/false);
    if (added.code() == absl::StatusCode::kAlreadyExists) {
      RETURN_IF_ERROR(accounts_.Check(request.name(), request.key()));  // another stream won
    } else if (!added.ok()) {
      return added;
    }
  }
  // All under the arena's lock, so that no other registration, match or
  // closing stream can come between choosing the seats and taking them.
  absl::MutexLock lock(&mu_);
  auto found = bots_.try_emplace(request.name()).first;
  RegisteredBot& bot = found->second;
  bot.max_matches = max_matches;
  bot.ladders.assign(request.ladders().begin(), request.ladders().end());
  const std::shared_ptr<Connection> replaced = std::exchange(bot.connection, connection);
  connection->set_bot(request.name());
  connection->set_identified();
  connection->set_describe_actions(request.describe_actions());
  connection->set_acknowledge_answers(request.acknowledge_answers());
  connection->set_events(request.events());
  std::vector<std::shared_ptr<HostedMatch>> live;
  std::set<std::string>& held = held_[connection.get()];
  for (const auto& [sequence, match] : matches_) {
    if (!match->IsOver() && match->HasBot(request.name())) {
      live.push_back(match);
      held.insert(match->id());
    }
  }
  if (replaced) {
    // The old stream keeps any seat it joined by token; it loses the bot's.
    if (auto old = held_.find(replaced.get()); old != held_.end()) {
      for (const auto& match : live) old->second.erase(match->id());
    }
    hoard::v1::ServerMessage notice;
    notice.mutable_error()->set_code(WireCode(absl::StatusCode::kAborted));
    notice.mutable_error()->set_message(
        "another stream registered as this bot and took over its seats");
    replaced->Send(std::move(notice));
    for (const auto& match : live) match->Detach(replaced.get());
  }
  hoard::v1::ServerMessage welcome;
  welcome.mutable_welcome()->set_bot(request.name());
  connection->Send(std::move(welcome));
  for (const auto& match : live) {
    const hoard::v1::Match described = match->Describe();
    for (const hoard::v1::SeatInfo& seat : described.seats()) {
      if (seat.player() == engine::PlayerId::Bot(request.name()).ToString()) {
        match->Attach(seat.seat(), connection);
      }
    }
  }
  return absl::OkStatus();
}

absl::Status Arena::Join(const std::shared_ptr<Connection>& connection,
                         const hoard::v1::Join& request) {
  if (request.seat_token().empty()) {
    return absl::UnauthenticatedError("join needs a seat_token");
  }
  RETURN_IF_ERROR(CheckEventDelivery(request.events()));
  std::shared_ptr<HostedMatch> match;
  TokenTarget target;
  bool first = false;
  {
    absl::MutexLock lock(&mu_);
    auto it = tokens_.find(request.seat_token());
    if (it == tokens_.end()) {
      return absl::UnauthenticatedError("unknown seat token (or its match is over)");
    }
    target = it->second;
    if (!request.match_id().empty() && request.match_id() != target.match_id) {
      return absl::PermissionDeniedError(absl::StrCat("this seat token is not for match '",
                                                      engine::Clip(request.match_id()), "'"));
    }
    auto found = by_id_.find(target.match_id);
    if (found == by_id_.end()) {
      return absl::NotFoundError(absl::StrCat("no match '", target.match_id, "'"));
    }
    match = found->second;
    first = !connection->identified();
    connection->set_identified();
    if (first) {
      connection->set_describe_actions(request.describe_actions());
      connection->set_acknowledge_answers(request.acknowledge_answers());
      connection->set_events(request.events());
    }
    held_[connection.get()].insert(target.match_id);
  }
  if (first) {
    hoard::v1::ServerMessage welcome;
    welcome.mutable_welcome();
    connection->Send(std::move(welcome));
  }
  match->Attach(target.seat, connection);
  return absl::OkStatus();
}

void Arena::SendError(const std::shared_ptr<Connection>& connection, const absl::Status& status,
                      const std::string& match_id) {
  hoard::v1::ServerMessage message;
  message.mutable_error()->set_code(WireCode(status.code()));
  message.mutable_error()->set_message(std::string(status.message()));
  message.mutable_error()->set_match_id(match_id);
  connection->Send(std::move(message));
}

void Arena::OnStreamClosed(const std::shared_ptr<Connection>& connection) {
  connection->Close();
  // Its challenges end, and those asking it, unless the bot is back on
  // another stream already.
  bool left = false;
  if (!connection->bot().empty()) {
    absl::MutexLock lock(&mu_);
    auto bot = bots_.find(connection->bot());
    left = bot != bots_.end() && bot->second.connection == connection;
  }
  if (left) challenges_->Closed(connection->bot());
  std::vector<std::shared_ptr<HostedMatch>> held;
  {
    absl::MutexLock lock(&mu_);
    auto it = held_.find(connection.get());
    if (it == held_.end()) return;
    for (const std::string& id : it->second) {
      auto found = by_id_.find(id);
      if (found != by_id_.end()) held.push_back(found->second);
    }
    held_.erase(it);
    if (!connection->bot().empty()) {
      auto bot = bots_.find(connection->bot());
      if (bot != bots_.end() && bot->second.connection == connection) {
        bot->second.connection.reset();
        if (bot->second.running <= 0) bots_.erase(bot);
      }
    }
  }
  for (const auto& match : held) match->Detach(connection.get());
  if (events_ && !connection->bot().empty()) {
    events_("bot_disconnected", {{"bot", connection->bot()}});
  }
}

int Arena::running_matches() const {
  absl::MutexLock lock(&mu_);
  return running_;
}

}  // namespace hoard::service
