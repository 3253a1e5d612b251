#include "service/challenges.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/clip.h"
#include "engine/player_id.h"
#include "engine/registry.h"
#include "tournament/match_request.h"

namespace hoard::service {
namespace {

constexpr std::size_t kMaxChallengeIdLength = 64;

hoard::v1::ServerMessage ResultMessage(hoard::v1::ChallengeResult result) {
  hoard::v1::ServerMessage message;
  *message.mutable_challenge_result() = std::move(result);
  return message;
}

void SendError(Connection& to, absl::StatusCode code, const std::string& text) {
  hoard::v1::ServerMessage message;
  message.mutable_error()->set_code(static_cast<int>(code));
  message.mutable_error()->set_message(text);
  to.Send(std::move(message));
}

// Why `challenge` from `challenger` cannot be played, or "".
std::string Flaw(const std::string& challenger, const hoard::v1::Challenge& challenge) {
  const int opponents = challenge.opponents_size();
  if (opponents < 1 || opponents > kMaxChallengeOpponents) {
    return absl::StrCat("a challenge asks 1 to ", kMaxChallengeOpponents, " bots, not ", opponents);
  }
  std::set<std::string> seen;
  for (const std::string& opponent : challenge.opponents()) {
    if (!engine::CheckBotName(opponent).ok()) {
      return absl::StrCat("'", engine::Clip(opponent), "' is no bot's name");
    }
    if (opponent == challenger) return "a bot cannot challenge itself";
    if (!seen.insert(opponent).second) return absl::StrCat("'", opponent, "' is asked twice");
  }
  if (absl::Status s = tournament::CheckClientStrings(challenge.game(), challenge.options());
      !s.ok()) {
    return std::string(s.message());
  }
  absl::StatusOr<const engine::Game*> game = engine::FindGame(challenge.game());
  if (!game.ok()) return std::string(game.status().message());
  const engine::GameInfo& info = (*game)->info();
  if (opponents + 1 < info.min_players || opponents + 1 > info.max_players) {
    return absl::StrCat(info.id, " takes ", info.min_players, " to ", info.max_players,
                        " players, not ", opponents + 1);
  }
  return "";
}

}  // namespace

ChallengeBoard::ChallengeBoard(TimerQueue* timers, Hooks hooks)
    : timers_(timers), hooks_(std::move(hooks)) {}

ChallengeBoard::~ChallengeBoard() {
  std::vector<TimerQueue::Id> timeouts;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [id, pending] : pending_) timeouts.push_back(pending->timeout);
  }
  for (TimerQueue::Id timeout : timeouts) timers_->Cancel(timeout);
}

void ChallengeBoard::Refuse(const std::shared_ptr<Connection>& from,
                            const std::string& challenge_id, const std::string& why) {
  hoard::v1::ChallengeResult result;
  result.set_challenge_id(engine::Clip(challenge_id));
  result.set_reason(why);
  from->Send(ResultMessage(std::move(result)));
}

void ChallengeBoard::Challenge(const std::shared_ptr<Connection>& from,
                               const hoard::v1::Challenge& challenge) {
  const std::string& challenger = from->bot();
  if (challenger.empty()) {
    return SendError(*from, absl::StatusCode::kFailedPrecondition,
                     "only a registered bot challenges (this stream joined by seat token)");
  }
  const std::string& own_id = challenge.challenge_id();
  if (own_id.empty() || own_id.size() > kMaxChallengeIdLength) {
    return SendError(*from, absl::StatusCode::kInvalidArgument,
                     absl::StrCat("a challenge_id has 1 to ", kMaxChallengeIdLength,
                                  " characters, not ", own_id.size()));
  }
  if (const std::string flaw = Flaw(challenger, challenge); !flaw.empty()) {
    return Refuse(from, own_id, flaw);
  }
  std::vector<std::shared_ptr<Connection>> offered;
  for (const std::string& opponent : challenge.opponents()) {
    std::shared_ptr<Connection> to = hooks_.connection_of(opponent);
    if (to == nullptr)
      return Refuse(from, own_id, absl::StrCat("bot ", opponent, " is not connected"));
    offered.push_back(std::move(to));
  }
  std::string id;
  {
    absl::MutexLock lock(&mu_);
    if (waiting_by_bot_[challenger] >= kMaxChallengesPerBot) {
      return Refuse(from, own_id,
                    absl::StrCat("this bot already waits for answers to ", kMaxChallengesPerBot,
                                 " challenges, its most"));
    }
    if (static_cast<int>(pending_.size()) >= kMaxChallenges) {
      return Refuse(from, own_id, "the server waits for answers to its most challenges; later");
    }
    for (const auto& [other, pending] : pending_) {
      if (pending->challenger == challenger && pending->challenger_id == own_id) {
        return Refuse(from, own_id, "this bot already has a challenge of that id waiting");
      }
    }
    id = absl::StrCat("c", next_id_++);
    auto pending = std::make_unique<Pending>();
    pending->server_id = id;
    pending->challenger = challenger;
    pending->challenger_id = own_id;
    pending->asked = challenge;
    pending->awaiting.insert(challenge.opponents().begin(), challenge.opponents().end());
    ++waiting_by_bot_[challenger];
    pending_.emplace(id, std::move(pending));
  }
  // Scheduled without the lock, which its callback takes.
  const TimerQueue::Id timeout =
      timers_->Schedule(SteadyClock::now() + absl::ToChronoMilliseconds(kChallengeAnswerTime),
                        [this, id] { TimedOut(id); });
  {
    absl::MutexLock lock(&mu_);
    if (auto it = pending_.find(id); it != pending_.end()) it->second->timeout = timeout;
  }
  hoard::v1::ServerMessage offer;
  hoard::v1::ChallengeOffer* o = offer.mutable_challenge_offer();
  o->set_challenge_id(id);
  o->set_challenger(challenger);
  *o->mutable_opponents() = challenge.opponents();
  o->set_game(challenge.game());
  *o->mutable_options() = challenge.options();
  o->set_rated(challenge.rated());
  o->set_answer_within_ms(absl::ToInt64Milliseconds(kChallengeAnswerTime));
  for (const std::shared_ptr<Connection>& to : offered) to->Send(offer);
}

std::unique_ptr<ChallengeBoard::Pending> ChallengeBoard::Take(const std::string& id) {
  auto it = pending_.find(id);
  if (it == pending_.end()) return nullptr;
  std::unique_ptr<Pending> pending = std::move(it->second);
  pending_.erase(it);
  if (--waiting_by_bot_[pending->challenger] <= 0) waiting_by_bot_.erase(pending->challenger);
  return pending;
}

void ChallengeBoard::Answer(const std::shared_ptr<Connection>& from,
                            const hoard::v1::ChallengeAnswer& answer) {
  const std::string& bot = from->bot();
  std::unique_ptr<Pending> ended;
  {
    absl::MutexLock lock(&mu_);
    auto it = pending_.find(answer.challenge_id());
    const auto asks = [&bot](const Pending& p) {
      return std::find(p.asked.opponents().begin(), p.asked.opponents().end(), bot) !=
             p.asked.opponents().end();
    };
    if (it == pending_.end() || !asks(*it->second)) {
      return SendError(*from, absl::StatusCode::kNotFound,
                       absl::StrCat("no challenge '", engine::Clip(answer.challenge_id()),
                                    "' waits for this bot's answer (it ended, or never asked it)"));
    }
    Pending& pending = *it->second;
    if (!pending.awaiting.erase(bot)) return;  // answered before: the first answer counts
    if (answer.accept() && !pending.awaiting.empty()) return;
    ended = Take(answer.challenge_id());
  }
  timers_->Cancel(ended->timeout);
  if (!answer.accept()) {
    hoard::v1::ChallengeResult result;
    result.set_reason(absl::StrCat("bot ", bot, " declined"));
    return Tell(*ended, std::move(result));
  }
  Start(std::move(ended));
}

void ChallengeBoard::Start(std::unique_ptr<Pending> pending) {
  hoard::v1::CreateMatchRequest request;
  request.set_game(pending->asked.game());
  *request.mutable_options() = pending->asked.options();
  request.set_unrated(!pending->asked.rated());
  request.add_seats()->set_bot(pending->challenger);
  for (const std::string& opponent : pending->asked.opponents()) {
    request.add_seats()->set_bot(opponent);
  }
  absl::StatusOr<std::string> started = hooks_.start(request);
  hoard::v1::ChallengeResult result;
  if (started.ok()) {
    result.set_accepted(true);
    result.set_match_id(*started);
  } else {
    result.set_reason(absl::StrCat("the match could not start: ", started.status().message()));
  }
  Tell(*pending, std::move(result));
}

void ChallengeBoard::Tell(const Pending& pending, hoard::v1::ChallengeResult result) {
  if (std::shared_ptr<Connection> challenger = hooks_.connection_of(pending.challenger)) {
    hoard::v1::ChallengeResult own = result;
    own.set_challenge_id(pending.challenger_id);
    challenger->Send(ResultMessage(std::move(own)));
  }
  // The bots asked hear how it ended too, under the server's id they were
  // offered it by (one that left hears nothing).
  for (const std::string& opponent : pending.asked.opponents()) {
    std::shared_ptr<Connection> to = hooks_.connection_of(opponent);
    if (to == nullptr) continue;
    hoard::v1::ChallengeResult theirs = result;
    theirs.set_challenge_id(pending.server_id);
    to->Send(ResultMessage(std::move(theirs)));
  }
}

void ChallengeBoard::TimedOut(const std::string& id) {
  std::unique_ptr<Pending> ended;
  {
    absl::MutexLock lock(&mu_);
    ended = Take(id);
  }
  if (ended == nullptr) return;
  hoard::v1::ChallengeResult result;
  result.set_reason(absl::StrCat(absl::StrJoin(ended->awaiting, ", "), " did not answer within ",
                                 absl::FormatDuration(kChallengeAnswerTime)));
  Tell(*ended, std::move(result));
}

void ChallengeBoard::Closed(const std::string& bot) {
  std::vector<std::unique_ptr<Pending>> ended;
  {
    absl::MutexLock lock(&mu_);
    std::vector<std::string> ids;
    for (const auto& [id, pending] : pending_) {
      if (pending->challenger == bot || pending->awaiting.contains(bot)) ids.push_back(id);
    }
    for (const std::string& id : ids) ended.push_back(Take(id));
  }
  for (const std::unique_ptr<Pending>& pending : ended) {
    timers_->Cancel(pending->timeout);
    hoard::v1::ChallengeResult result;
    result.set_reason(absl::StrCat("bot ", bot, " left"));
    Tell(*pending, std::move(result));
  }
}

}  // namespace hoard::service
