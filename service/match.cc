#include "service/match.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "engine/check.h"
#include "engine/player_id.h"
#include "engine/seed_commitment.h"
#include "tournament/secrets.h"

namespace hoard::service {
namespace {

using engine::Action;
using engine::Seat;

// Events kept for a seat that hears them in its requests, between two of
// its requests: far more than a match's actions between two decisions of
// one seat, a bound on a stream that disconnects and reconnects at will.
constexpr std::size_t kMaxEventsBetweenRequests = 4096;

std::string PlayerLabel(const SeatPlayer& player) {
  switch (player.kind) {
    case SeatPlayer::Kind::kBuiltin:
      return engine::PlayerId::Builtin(player.name).ToString();
    case SeatPlayer::Kind::kBot:
      return engine::PlayerId::Bot(player.name).ToString();
    case SeatPlayer::Kind::kOpen:
      return std::string(engine::kOpenSeat);
  }
  return "";
}

hoard::v1::AnswerResult Refusal(const hoard::v1::Answer& answer, absl::StatusCode code,
                                std::string reason, bool may_retry) {
  hoard::v1::AnswerResult result;
  result.set_match_id(answer.match_id());
  result.set_request_id(answer.request_id());
  result.set_accepted(false);
  result.set_code(WireCode(code));
  result.set_reason(std::move(reason));
  result.set_may_retry(may_retry);
  return result;
}

}  // namespace

HostedMatch::HostedMatch(MatchSetup setup, std::unique_ptr<engine::State> state, TimerQueue* timers,
                         std::function<void()> on_finished)
    : id_(std::move(setup.id)),
      sequence_(setup.sequence),
      game_(*setup.game),
      codec_(*setup.codec),
      config_(std::move(setup.config)),
      time_control_(setup.time_control),
      sealed_(setup.sealed),
      unrated_(setup.unrated),
      played_through_(setup.played_through),
      seed_salt_(setup.seed_salt),
      seed_commitment_(seed_salt_.empty() ? "" : engine::SeedCommitment(config_.seed, seed_salt_)),
      thinkers_(setup.thinkers),
      metrics_(setup.metrics),
      timers_(timers),
      on_finished_(std::move(on_finished)),
      state_(std::move(state)),
      initial_(played_through_ ? nullptr : state_->Clone()),
      packed_(config_.num_players),
      started_unix_ms_(absl::ToUnixMillis(absl::Now())) {
  HOARD_CHECK(static_cast<int>(setup.seats.size()) == config_.num_players, "one player per seat");
  // Made in place: a seat's state is not cheap to move (its event queue).
  seat_names_.reserve(setup.seats.size());
  seats_.reserve(setup.seats.size());
  for (SeatPlayer& player : setup.seats) {
    seat_names_.push_back(PlayerLabel(player));
    SeatState& seat = seats_.emplace_back();
    seat.player = std::move(player);
    seat.bank_ms = time_control_.bank_ms;
  }
}

HostedMatch::~HostedMatch() {
  absl::MutexLock lock(&mu_);
  for (SeatState& seat : seats_) {
    if (seat.pending) timers_->Cancel(seat.pending->timer);
  }
}

const std::string& HostedMatch::game_id() const { return game_.info().id; }

void HostedMatch::Start() {
  {
    absl::MutexLock lock(&mu_);
    Advance();
  }
  NotifyIfFinished();
}

void HostedMatch::Think(Seat seat, Thinking* next) {
  SeatState& s = seats_[seat];
  s.thinking = true;
  Thinking thinking{
      .seat = seat,
      .thought = ++s.thought,
      .bot = s.player.builtin.get(),
      // Built only for a bot that reads it.
      .view = s.player.builtin->ReadsView() ? state_->ViewFor(seat) : nullptr,
      .legal = std::make_shared<const std::vector<Action>>(state_->LegalActions(seat))};
  if (next != nullptr && next->bot == nullptr) {
    *next = std::move(thinking);
    return;
  }
  // The bot lives as long as the match, which the task holds.
  thinkers_->Post([match = shared_from_this(), thinking = std::move(thinking)] {
    if (match->IsOver()) return;  // aborted while it waited
    match->Thought(thinking.seat, thinking.thought, thinking.Choose(), thinking.legal);
  });
}

void HostedMatch::Thought(Seat seat, int thought, Action action,
                          std::shared_ptr<const std::vector<Action>> legal) {
  const SteadyClock::time_point began = SteadyClock::now();
  while (true) {
    Thinking next;
    {
      absl::MutexLock lock(&mu_);
      SeatState& s = seats_[seat];
      if (finished_ || !s.thinking || s.thought != thought) return;
      s.thinking = false;
      Play(seat, action, legal.get(), /*by_default=*/false);
      // Cheap bots (random, heuristic) play a match through on one worker;
      // one that thinks longer hands each decision to the pool, where other
      // matches' decisions take turns with it.
      Advance(SteadyClock::now() - began < kInlineThinking ? &next : nullptr);
    }
    NotifyIfFinished();
    if (next.bot == nullptr) return;
    seat = next.seat;
    thought = next.thought;
    action = next.Choose();
    legal = std::move(next.legal);
  }
}

void HostedMatch::NotifyIfFinished() {
  bool notify = false;
  {
    absl::MutexLock lock(&mu_);
    std::swap(notify, finish_to_notify_);
  }
  if (notify && on_finished_) on_finished_();
}

void HostedMatch::Advance(Thinking* next) {
  while (!state_->IsOver()) {
    const engine::Seats to_act = state_->SeatsToAct();
    bool played = false;
    bool waiting = false;
    for (Seat seat : to_act) {
      SeatState& s = seats_[seat];
      if (s.pending) {
        waiting = true;
        continue;
      }
      if (s.player.kind == SeatPlayer::Kind::kBuiltin && thinkers_ != nullptr) {
        if (!s.thinking) Think(seat, next);
        waiting = true;
        continue;
      }
      if (s.player.kind == SeatPlayer::Kind::kBuiltin) {
        engine::Bot& bot = *s.player.builtin;
        if (bot.PlaysDefault()) {
          // Its choice is known: no list to make.
          Play(seat, state_->DefaultAction(seat), nullptr, /*by_default=*/false);
        } else {
          state_->LegalActions(seat, &legal_);
          Play(seat,
               bot.ReadsView() ? bot.Choose(*state_->ViewFor(seat), legal_)
                               : bot.Choose(engine::NoView(), legal_),
               &legal_, /*by_default=*/false);
        }
        played = true;
        break;
      }
      if (s.forfeited) {
        Play(seat, state_->DefaultAction(seat), nullptr, /*by_default=*/true);
        played = true;
        break;
      }
      IssueRequest(seat);
      waiting = true;
    }
    if (!played && waiting) return;
  }
  Finish();
}

void HostedMatch::IssueRequest(Seat seat) {
  SeatState& s = seats_[seat];
  Pending pending;
  outcomes_.push_back(Outcome::kOpen);
  pending.request_id = static_cast<std::int64_t>(outcomes_.size());
  pending.legal = state_->LegalActions(seat);
  pending.complete = state_->LegalActionsComplete(seat);
  if (!pending.complete) pending.constraints = state_->LegalActionsHint(seat);
  pending.issued_at = pending.sent_at = SteadyClock::now();
  pending.clock = std::make_shared<DecisionClock>(
      std::chrono::milliseconds(time_control_.decision_ms + s.bank_ms));
  // The earliest the request can be due: its clock starts when it is sent.
  pending.timer =
      ScheduleTimeout(seat, pending.request_id, pending.issued_at + pending.clock->budget());
  s.pending = std::move(pending);
  SendRequest(seat, /*resent=*/false);
  // A seat without a stream gets no request: its clock runs all the same.
  if (s.connection == nullptr) s.pending->clock->Start(SteadyClock::now());
}

TimerQueue::Id HostedMatch::ScheduleTimeout(Seat seat, std::int64_t request_id,
                                            SteadyClock::time_point when) {
  // The timer holds the match only weakly, and keeps it alive while it runs.
  return timers_->Schedule(when, [weak = weak_from_this(), seat, request_id] {
    if (std::shared_ptr<HostedMatch> self = weak.lock()) self->OnTimeout(seat, request_id);
  });
}

void HostedMatch::SendRequest(Seat seat, bool resent) {
  SeatState& s = seats_[seat];
  if (!s.pending || s.connection == nullptr) return;
  // Built when sent, not kept: an idle match holds only its legal actions
  // (and their constraints). The seat's legal actions are those of when it
  // was asked; its view is the current one (which never shows another
  // seat's sealed answer).
  OutgoingMessage message = OutgoingMessage::OnArena();
  hoard::v1::DecisionRequest* request = message->mutable_decision();
  request->set_match_id(id_);
  request->set_request_id(s.pending->request_id);
  request->set_seat(seat);
  codec_.ViewToProto(*state_->ViewFor(seat), request->mutable_view());
  for (std::size_t i = 0; i < s.pending->legal.size(); ++i) {
    hoard::v1::LegalAction* legal = request->add_legal_actions();
    legal->set_index(static_cast<int>(i));
    codec_.ActionToProto(s.pending->legal[i], legal->mutable_action());
    if (s.connection->describe_actions()) {
      legal->set_text(state_->ActionToString(seat, s.pending->legal[i]));
    }
  }
  request->set_legal_actions_complete(s.pending->complete);
  request->set_constraints(s.pending->constraints);
  // The deadline once the clock has started; until then a whole budget
  // (restated when the request is handed over and the clock starts).
  const SteadyClock::time_point deadline =
      s.pending->clock->deadline().value_or(SteadyClock::now() + s.pending->clock->budget());
  request->set_deadline_unix_ms(UnixMillis(deadline));
  request->set_time_left_ms(MillisUntil(deadline));
  request->set_bank_ms(s.bank_ms);
  request->set_resent(resent);
  if (s.events == hoard::v1::EVENT_DELIVERY_IN_REQUESTS) {
    // Told with this request from now on: a resent request carries them again.
    std::move(s.untold.begin(), s.untold.end(), std::back_inserter(s.pending->events));
    s.untold.clear();
    for (const hoard::v1::MatchEvent& event : s.pending->events) *request->add_events() = event;
  }
  if (resent) s.pending->sent_at = SteadyClock::now();
  message.set_clock(s.pending->clock);
  // A stream that has ended takes nothing: the clock runs all the same.
  if (!s.connection->Send(std::move(message))) s.pending->clock->Start(SteadyClock::now());
}

void HostedMatch::Attach(Seat seat, std::shared_ptr<Connection> connection) {
  {
    absl::MutexLock lock(&mu_);
    SeatState& s = seats_[seat];
    const bool reconnect = s.connection != nullptr || s.answers > 0 || s.timeouts > 0;
    s.connection = std::move(connection);
    s.events = s.connection->events();
    if (s.events != hoard::v1::EVENT_DELIVERY_IN_REQUESTS) s.untold.clear();
    if (s.events == hoard::v1::EVENT_DELIVERY_NONE) s.told = told_;
    hoard::v1::ServerMessage message;
    hoard::v1::Seated* seated = message.mutable_seated();
    seated->set_match_id(id_);
    seated->set_seat(seat);
    seated->set_game(game_.info().id);
    seated->set_players(config_.num_players);
    seated->mutable_options()->insert(config_.options.begin(), config_.options.end());
    seated->mutable_time_control()->set_decision_ms(time_control_.decision_ms);
    seated->mutable_time_control()->set_bank_ms(time_control_.bank_ms);
    seated->mutable_time_control()->set_max_strikes(time_control_.max_strikes);
    seated->set_seed_commitment(seed_commitment_);
    s.connection->Send(std::move(message));
    if (state_->IsOver()) {
      hoard::v1::ServerMessage finished;
      finished.mutable_event()->set_match_id(id_);
      finished.mutable_event()->set_step(steps_);
      *finished.mutable_event()->mutable_finished()->mutable_match() = DescribeToTableLocked();
      s.connection->Send(std::move(finished));
      return;
    }
    CatchUp(seat);
    if (reconnect) PublishFault(seat, hoard::v1::SeatFault::KIND_RECONNECTED);
    SendRequest(seat, /*resent=*/reconnect);
  }
}

void HostedMatch::Detach(const Connection* connection) {
  absl::MutexLock lock(&mu_);
  for (Seat seat = 0; seat < static_cast<Seat>(seats_.size()); ++seat) {
    if (seats_[seat].connection.get() != connection) continue;
    seats_[seat].connection.reset();
    // A request the stream never got: the seat's clock runs from now.
    if (seats_[seat].pending) seats_[seat].pending->clock->Start(SteadyClock::now());
    if (!state_->IsOver()) {
      ++seats_[seat].disconnects;
      PublishFault(seat, hoard::v1::SeatFault::KIND_DISCONNECTED);
    }
  }
}

hoard::v1::AnswerResult HostedMatch::Answer(const Connection* connection,
                                            const hoard::v1::Answer& answer,
                                            SteadyClock::time_point received) {
  hoard::v1::AnswerResult result = Judge(connection, answer, received);
  if (metrics_ != nullptr && !result.accepted()) {
    metrics_->refused.fetch_add(1, std::memory_order_relaxed);
  }
  return result;
}

hoard::v1::AnswerResult HostedMatch::Judge(const Connection* connection,
                                           const hoard::v1::Answer& answer,
                                           SteadyClock::time_point received) {
  hoard::v1::AnswerResult result;
  {
    absl::MutexLock lock(&mu_);
    const std::int64_t id = answer.request_id();
    if (id < 1 || id > static_cast<std::int64_t>(outcomes_.size())) {
      return Refusal(answer, absl::StatusCode::kNotFound,
                     absl::StrCat("match ", id_, " has no request ", id), false);
    }
    Seat seat = -1;
    for (Seat s = 0; s < static_cast<Seat>(seats_.size()); ++s) {
      if (seats_[s].pending && seats_[s].pending->request_id == id) seat = s;
    }
    if (seat < 0) {
      return Refusal(answer, absl::StatusCode::kFailedPrecondition,
                     aborted_ && outcomes_[id - 1] == Outcome::kOpen
                         ? absl::StrCat("match ", id_, " was aborted (the server is stopping)")
                     : outcomes_[id - 1] == Outcome::kTimedOut
                         ? absl::StrCat("request ", id,
                                        " timed out before this answer; the default "
                                        "action was played")
                         : absl::StrCat("request ", id, " was already answered"),
                     false);
    }
    SeatState& s = seats_[seat];
    if (s.connection.get() != connection) {
      return Refusal(
          answer, absl::StatusCode::kPermissionDenied,
          absl::StrCat("request ", id, " is for seat ", seat, ", which this stream does not hold"),
          false);
    }
    std::optional<SteadyClock::time_point> deadline = s.pending->clock->deadline();
    // A stall of the whole server is not the bot's time.
    const SteadyClock::duration stalled =
        timers_->StalledBetween(s.pending->clock->started().value_or(received), received);
    if (deadline) *deadline += stalled;
    if (deadline && received >= *deadline) {
      TimeOut(seat);
      result = Refusal(answer, absl::StatusCode::kFailedPrecondition,
                       absl::StrCat("request ", id,
                                    " timed out before this answer; the "
                                    "default action was played"),
                       false);
    } else {
      absl::StatusOr<Action> action =
          absl::InvalidArgumentError("the answer has neither legal_index nor action");
      if (answer.choice_case() == hoard::v1::Answer::kLegalIndex) {
        const int index = answer.legal_index();
        const int size = static_cast<int>(s.pending->legal.size());
        action = index >= 0 && index < size
                     ? absl::StatusOr<Action>(s.pending->legal[index])
                     : absl::InvalidArgumentError(absl::StrCat(
                           "legal_index ", index, " is out of range: the request lists ", size,
                           " legal actions (0 to ", size - 1, ")"));
      } else if (answer.choice_case() == hoard::v1::Answer::kAction) {
        action = codec_.ActionFromProtoIn(answer.action(), *state_);
      }
      if (action.ok() && std::find(s.pending->legal.begin(), s.pending->legal.end(), *action) ==
                             s.pending->legal.end()) {
        // Not listed: let the rules say whether it is legal, and why not.
        // A complete list holds every legal action, so there an unlisted
        // one is refused whatever the rules say.
        std::unique_ptr<engine::State> probe = state_->Clone();
        const absl::Status status = probe->Apply(seat, *action);
        if (!status.ok()) {
          action = status;
        } else if (s.pending->complete) {
          action = absl::InvalidArgumentError(
              absl::StrCat("the action is not one of the ", s.pending->legal.size(),
                           " legal actions the request lists (the list is complete)"));
        }
      }
      if (!action.ok()) {
        ++s.illegal_answers;
        return Refusal(answer, action.status().code(), std::string(action.status().message()),
                       true);
      }
      // From when the request was handed over to when the answer came (an
      // answer to one not yet sent, to a guessed request id, took no time).
      const SteadyClock::time_point started = s.pending->clock->started().value_or(received);
      const auto elapsed =
          std::chrono::duration_cast<std::chrono::milliseconds>(received - started - stalled);
      const auto round_trip = std::chrono::duration_cast<std::chrono::microseconds>(
          received - std::min(received, std::max(started, s.pending->sent_at)));
      s.bank_ms = std::max<int>(0, s.bank_ms - std::max<int>(0, static_cast<int>(elapsed.count()) -
                                                                    time_control_.decision_ms));
      ++s.answers;
      if (answer.default_reason() != hoard::v1::DEFAULT_REASON_UNSPECIFIED) ++s.default_answers;
      s.round_trip_us_total += round_trip.count();
      if (metrics_ != nullptr) {
        metrics_->decision_seconds.Observe(absl::FromChrono(round_trip));
      }
      timers_->Cancel(s.pending->timer);
      const std::vector<Action> legal = std::move(s.pending->legal);
      s.pending.reset();
      outcomes_[id - 1] = Outcome::kAnswered;
      Play(seat, *action, &legal, /*by_default=*/false);
      Advance();
      result.set_match_id(id_);
      result.set_request_id(id);
      result.set_accepted(true);
    }
  }
  NotifyIfFinished();
  return result;
}

void HostedMatch::OnTimeout(Seat seat, std::int64_t request_id) {
  {
    absl::MutexLock lock(&mu_);
    SeatState& s = seats_[seat];
    if (!s.pending || s.pending->request_id != request_id) return;
    const SteadyClock::time_point now = SteadyClock::now();
    std::optional<SteadyClock::time_point> deadline = s.pending->clock->deadline();
    if (!deadline && now - s.pending->issued_at >= DecisionClock::kMaxUnsent) {
      deadline = s.pending->clock->Start(now);  // waited too long to be sent
    }
    // A stall of the whole server is not the bot's time.
    if (deadline) *deadline += timers_->StalledBetween(*s.pending->clock->started(), now);
    if (!deadline || now < *deadline) {
      // Not due yet. Unsent, it is looked at again a budget later: its clock
      // starts after now, so its deadline is later than that.
      s.pending->timer =
          ScheduleTimeout(seat, request_id, deadline.value_or(now + s.pending->clock->budget()));
      return;
    }
    if (s.connection != nullptr && s.connection->HoldsUnhandledFrom(*deadline)) {
      // The stream holds a message that came in time, not yet handled: it
      // may be the answer. Looked at again an eighth of the budget later (a
      // silent seat's time-out comes that much late at most, while the
      // stream's messages wait).
      s.pending->timer = ScheduleTimeout(
          seat, request_id,
          now + std::max<SteadyClock::duration>(TimerQueue::kTick, s.pending->clock->budget() / 8));
      return;
    }
    TimeOut(seat);
  }
  NotifyIfFinished();
}

void HostedMatch::TimeOut(Seat seat) {
  SeatState& s = seats_[seat];
  timers_->Cancel(s.pending->timer);
  outcomes_[s.pending->request_id - 1] = Outcome::kTimedOut;
  const std::vector<Action> legal = std::move(s.pending->legal);
  s.pending.reset();
  s.bank_ms = 0;
  ++s.timeouts;
  if (metrics_ != nullptr) metrics_->timeouts.fetch_add(1, std::memory_order_relaxed);
  PublishFault(seat, hoard::v1::SeatFault::KIND_TIMEOUT);
  if (time_control_.max_strikes > 0 && s.timeouts >= time_control_.max_strikes && !s.forfeited) {
    s.forfeited = true;
    PublishFault(seat, hoard::v1::SeatFault::KIND_FORFEIT);
  }
  Play(seat, legal[0], &legal, /*by_default=*/true);
  Advance();
}

void HostedMatch::Play(Seat seat, Action action, const std::vector<Action>* legal,
                       bool by_default) {
  std::string text;
  std::vector<engine::ToldAction> told;
  if (!played_through_) {
    text = state_->ActionToString(seat, action);
    told = play_by_play_.Tell(*state_, seat, action, text, by_default);
  }
  const absl::Status status = state_->Apply(seat, action);
  HOARD_CHECK(status.ok(), "the match host applied an action it had checked");
  if (legal != nullptr) {
    packed_.Record(seat, action, *legal, *state_);
  } else {
    packed_.RecordDefault(seat, *state_);
  }
  ++steps_;
  if (played_through_) return;  // its creator counts its decisions
  actions_.push_back({.seat = seat, .action = action, .text = std::move(text)});
  by_default_.push_back(by_default);
  if (metrics_ != nullptr) {
    std::atomic<std::int64_t>& count = by_default ? metrics_->default_decisions
                                       : seats_[seat].player.kind == SeatPlayer::Kind::kBuiltin
                                           ? metrics_->builtin_decisions
                                           : metrics_->bot_decisions;
    count.fetch_add(1, std::memory_order_relaxed);
  }
  told_ += static_cast<int>(told.size());
  if (!Heard()) return;
  for (engine::ToldAction& item : told) Publish(ActionEvent(std::move(item)));
}

hoard::v1::MatchEvent HostedMatch::ActionEvent(engine::ToldAction told) const {
  hoard::v1::MatchEvent event;
  event.set_match_id(id_);
  event.set_step(told.step);
  hoard::v1::ActionTaken* taken = event.mutable_action_taken();
  taken->set_seat(told.seat);
  taken->set_by_default(told.by_default);
  if (told.action) codec_.ActionToProto(*told.action, taken->mutable_action());
  taken->set_text(std::move(told.text));
  return event;
}

void HostedMatch::TellAgain(int from, absl::FunctionRef<void(hoard::v1::MatchEvent)> tell) const {
  HOARD_CHECK(!played_through_, "a match played through is told to nobody");
  // Told again from the start: the same actions give the same telling.
  engine::PlayByPlay again;
  std::unique_ptr<engine::State> replay = initial_->Clone();
  int index = 0;
  for (std::size_t i = 0; i < actions_.size(); ++i) {
    const engine::RecordedAction& step = actions_[i];
    for (engine::ToldAction& item :
         again.Tell(*replay, step.seat, step.action, step.text, by_default_[i])) {
      if (index++ >= from) tell(ActionEvent(std::move(item)));
    }
    HOARD_CHECK(replay->Apply(step.seat, step.action).ok(), "a match replays its actions");
  }
}

void HostedMatch::CatchUp(Seat seat) {
  SeatState& s = seats_[seat];
  if (s.events == hoard::v1::EVENT_DELIVERY_NONE || s.told >= told_) return;
  TellAgain(s.told, [&](hoard::v1::MatchEvent event) {
    if (s.events == hoard::v1::EVENT_DELIVERY_IN_REQUESTS) {
      if (s.untold.size() >= kMaxEventsBetweenRequests) s.untold.pop_front();
      s.untold.push_back(std::move(event));
    } else {
      event.set_seat(seat);
      hoard::v1::ServerMessage message;
      *message.mutable_event() = std::move(event);
      s.connection->Send(std::move(message));
    }
  });
  s.told = told_;
}

void HostedMatch::Finish() {
  if (finished_) return;
  finished_ = true;
  finished_unix_ms_ = absl::ToUnixMillis(absl::Now());
  final_scores_ = state_->Scores();
  final_ranks_ = FinalRanks();
  finish_to_notify_ = true;
  AnnounceEnd();
}

bool HostedMatch::Abort() {
  {
    absl::MutexLock lock(&mu_);
    if (finished_) return false;
    for (SeatState& seat : seats_) {
      if (!seat.pending) continue;
      timers_->Cancel(seat.pending->timer);
      seat.pending.reset();
    }
    finished_ = true;
    aborted_ = true;
    finished_unix_ms_ = absl::ToUnixMillis(absl::Now());
    finish_to_notify_ = true;
    AnnounceEnd();
  }
  NotifyIfFinished();
  return true;
}

hoard::v1::MatchEvent HostedMatch::FinishedEventLocked() const {
  hoard::v1::MatchEvent event;
  event.set_match_id(id_);
  event.set_step(steps_);
  *event.mutable_finished()->mutable_match() = DescribeToTableLocked();
  return event;
}

void HostedMatch::AnnounceEnd() {
  for (SeatState& s : seats_) s.untold.clear();
  const bool seats_listen = std::any_of(seats_.begin(), seats_.end(),
                                        [](const SeatState& s) { return s.connection != nullptr; });
  if (!seats_listen && watchers_.empty()) return;  // nobody to tell
  hoard::v1::MatchEvent event = FinishedEventLocked();
  // Every seat hears of the end, whatever its stream chose; with its view
  // if it hears every event on the stream.
  for (Seat seat = 0; seat < static_cast<Seat>(seats_.size()); ++seat) {
    SeatState& s = seats_[seat];
    if (s.connection == nullptr) continue;
    hoard::v1::ServerMessage message;
    *message.mutable_event() = event;
    message.mutable_event()->set_seat(seat);
    if (s.events == hoard::v1::EVENT_DELIVERY_STREAM) {
      codec_.ViewToProto(*state_->ViewFor(seat), message.mutable_event()->mutable_view());
    }
    s.connection->Send(std::move(message));
  }
  TellSpectators(std::move(event));
  for (const auto& watcher : watchers_) watcher->Close();
  watchers_.clear();
}

std::vector<int> HostedMatch::FinalRanks() const {
  // Forfeited seats finish after every other, keeping the rules' order
  // among themselves.
  const std::vector<int> ranks = state_->Ranks();
  std::vector<std::pair<int, int>> keys;
  for (std::size_t seat = 0; seat < seats_.size(); ++seat) {
    keys.emplace_back(seats_[seat].forfeited ? 0 : 1, -ranks[seat]);
  }
  return engine::RanksFromKeys(keys);
}

void HostedMatch::Publish(hoard::v1::MatchEvent event) {
  TellSeats(event);
  TellSpectators(std::move(event));
}

void HostedMatch::TellSpectators(hoard::v1::MatchEvent event) {
  if (watchers_.empty()) return;
  std::erase_if(watchers_, [](const auto& watcher) { return !watcher->open(); });
  codec_.ViewToProto(*state_->ViewFor(engine::kSpectator), event.mutable_view());
  for (const auto& watcher : watchers_) watcher->Send(event);
}

void HostedMatch::TellSeats(const hoard::v1::MatchEvent& event) {
  for (Seat seat = 0; seat < static_cast<Seat>(seats_.size()); ++seat) {
    SeatState& s = seats_[seat];
    switch (s.events) {
      case hoard::v1::EVENT_DELIVERY_IN_REQUESTS:
        if (s.untold.size() >= kMaxEventsBetweenRequests) s.untold.pop_front();
        s.untold.push_back(event);
        if (event.has_action_taken()) ++s.told;
        break;
      case hoard::v1::EVENT_DELIVERY_STREAM: {
        if (s.connection == nullptr) break;
        if (event.has_action_taken()) ++s.told;
        OutgoingMessage message = OutgoingMessage::OnArena();
        hoard::v1::MatchEvent* told = message->mutable_event();
        *told = event;
        told->set_seat(seat);
        codec_.ViewToProto(*state_->ViewFor(seat), told->mutable_view());
        s.connection->Send(std::move(message));
        break;
      }
      default:
        break;
    }
  }
}

bool HostedMatch::Heard() const {
  if (!watchers_.empty()) return true;
  for (const SeatState& s : seats_) {
    if (s.events == hoard::v1::EVENT_DELIVERY_IN_REQUESTS ||
        (s.events == hoard::v1::EVENT_DELIVERY_STREAM && s.connection != nullptr)) {
      return true;
    }
  }
  return false;
}

void HostedMatch::PublishFault(Seat seat, hoard::v1::SeatFault::Kind kind) {
  if (!Heard()) return;
  hoard::v1::MatchEvent event;
  event.set_match_id(id_);
  event.set_step(steps_);
  event.mutable_fault()->set_seat(seat);
  event.mutable_fault()->set_kind(kind);
  Publish(std::move(event));
}

void HostedMatch::Watch(std::shared_ptr<EventOutbox> watcher, bool from_start) {
  absl::MutexLock lock(&mu_);
  hoard::v1::MatchEvent event;
  event.set_match_id(id_);
  event.set_step(steps_);
  *event.mutable_snapshot()->mutable_match() = DescribeToTableLocked();
  codec_.ViewToProto(*state_->ViewFor(engine::kSpectator), event.mutable_view());
  watcher->Send(event);
  if (finished_) {
    // What the spectators of its end were told, told again.
    hoard::v1::MatchEvent end = FinishedEventLocked();
    *end.mutable_view() = event.view();
    watcher->Send(end);
    watcher->Close();
    return;
  }
  // The play so far, as the table was told it, after the table it led to.
  if (from_start) TellAgain(0, [&](const hoard::v1::MatchEvent& told) { watcher->Send(told); });
  std::erase_if(watchers_, [](const auto& w) { return !w->open(); });
  watchers_.push_back(std::move(watcher));
}

bool HostedMatch::HasBot(const std::string& name) const {
  absl::MutexLock lock(&mu_);
  for (const SeatState& seat : seats_) {
    if (seat.player.kind == SeatPlayer::Kind::kBot && seat.player.name == name) {
      return true;
    }
  }
  return false;
}

bool HostedMatch::IsOver() const {
  absl::MutexLock lock(&mu_);
  return finished_;
}

hoard::v1::Match HostedMatch::Describe() const {
  absl::MutexLock lock(&mu_);
  return DescribeLocked();
}

hoard::v1::Match HostedMatch::DescribeLocked() const {
  hoard::v1::Match match;
  match.set_match_id(id_);
  match.set_game(game_.info().id);
  match.set_ruleset_version(game_.info().ruleset_version);
  match.set_status(aborted_    ? hoard::v1::MATCH_STATUS_ABORTED
                   : finished_ ? hoard::v1::MATCH_STATUS_FINISHED
                               : hoard::v1::MATCH_STATUS_RUNNING);
  const bool scored = finished_ && !aborted_;
  match.set_actions(steps_);
  match.mutable_time_control()->set_decision_ms(time_control_.decision_ms);
  match.mutable_time_control()->set_bank_ms(time_control_.bank_ms);
  match.mutable_time_control()->set_max_strikes(time_control_.max_strikes);
  match.mutable_options()->insert(config_.options.begin(), config_.options.end());
  match.set_seed_commitment(seed_commitment_);
  if (scored) {
    match.set_seed(config_.seed);
    match.set_seed_salt(seed_salt_);
  }
  match.set_sealed(sealed_);
  match.set_unrated(unrated_);
  match.set_started_unix_ms(started_unix_ms_);
  match.set_finished_unix_ms(finished_unix_ms_);
  for (std::size_t i = 0; i < seats_.size(); ++i) {
    const SeatState& s = seats_[i];
    hoard::v1::SeatInfo* seat = match.add_seats();
    seat->set_seat(static_cast<int>(i));
    seat->set_player(PlayerLabel(s.player));
    seat->set_connected(s.player.kind == SeatPlayer::Kind::kBuiltin ||
                        (s.connection != nullptr && s.connection->open()));
    if (scored) {
      seat->set_score(final_scores_[i]);
      seat->set_rank(final_ranks_[i]);
    }
    seat->set_timeouts(s.timeouts);
    seat->set_illegal_answers(s.illegal_answers);
    seat->set_forfeited(s.forfeited);
    seat->set_disconnects(s.disconnects);
    seat->set_answers(s.answers);
    seat->set_default_answers(s.default_answers);
    if (s.answers > 0) seat->set_mean_round_trip_us(s.round_trip_us_total / s.answers);
  }
  return match;
}

hoard::v1::Match HostedMatch::DescribeToTableLocked() const {
  hoard::v1::Match match = DescribeLocked();
  if (sealed_) tournament::HideDeal(match);
  return match;
}

std::shared_ptr<const engine::MatchRecord> HostedMatch::Record() const {
  absl::MutexLock lock(&mu_);
  if (!finished_ || aborted_) return nullptr;
  HOARD_CHECK(!played_through_, "a match played through keeps no words: expand its compact record");
  if (!record_) {
    engine::MatchRecorder recorder(game_.info(), config_, seat_names_, *initial_);
    std::unique_ptr<engine::State> replay = initial_->Clone();
    for (const engine::RecordedAction& step : actions_) {
      HOARD_CHECK(replay->Apply(step.seat, step.action).ok(), "a match replays its actions");
      recorder.Record(step.seat, step.action, step.text, *replay);
    }
    auto record = std::make_shared<engine::MatchRecord>(recorder.Finish(*replay));
    record->ranks = final_ranks_;
    record->seed_commitment = seed_commitment_;
    record->seed_salt = seed_salt_;
    record_ = std::move(record);
  }
  return record_;
}

std::optional<engine::MatchRecord> HostedMatch::CompactRecord() const {
  absl::MutexLock lock(&mu_);
  if (!finished_ || aborted_) return std::nullopt;
  engine::MatchRecord record = {.game = game_.info().id,
                                .ruleset_version = game_.info().ruleset_version,
                                .seed = config_.seed,
                                .options = config_.options,
                                .seats = seat_names_,
                                .scores = final_scores_,
                                .ranks = final_ranks_,
                                .seed_commitment = seed_commitment_,
                                .seed_salt = seed_salt_};
  packed_.Finish(*state_, record);
  return record;
}

}  // namespace hoard::service
