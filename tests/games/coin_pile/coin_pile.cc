#include "tests/games/coin_pile/coin_pile.h"

#include <span>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hoard::engine::coin_pile {
namespace {

int Total(const Coins& coins) { return coins[0] + coins[1] + coins[2]; }

std::string Names(const Coins& coins) {
  return absl::StrCat(coins[0], "x1 ", coins[1], "x2 ", coins[2], "x3");
}

class CoinPileGame final : public Game {
 public:
  CoinPileGame() {
    info_ = {.id = "coin_pile",
             .name = "Coin pile",
             .min_players = 2,
             .max_players = 4,
             .ruleset_version = "1",
             .max_actions = kValues * kCoinsPerValue};
  }
  const GameInfo& info() const override { return info_; }
  absl::StatusOr<std::unique_ptr<State>> NewMatch(const MatchConfig& config) const override {
    if (absl::Status status = ValidateConfig(info_, config); !status.ok()) return status;
    Position p;
    for (int value = 1; value <= kValues; ++value)
      p.stack.insert(p.stack.end(), kCoinsPerValue, value);
    Rng rng(config.seed);
    rng.Shuffle(std::span<int>(p.stack));
    p.hands.resize(config.num_players);
    p.scores.assign(config.num_players, 0);
    for (Coins& hand : p.hands) {
      for (int i = 0; i < kHandSize; ++i) {
        ++hand[p.stack.back() - 1];
        p.stack.pop_back();
      }
    }
    return std::make_unique<CoinPileState>(std::move(p));
  }

 private:
  GameInfo info_;
};

}  // namespace

std::string CoinPileView::ToString() const {
  return absl::StrCat("observer ", observer, " own ", Names(own), " hands ",
                      absl::StrJoin(hand_sizes, ","), " stack ", stack_size, " pile ", Names(pile),
                      " top ", top, " scores ", absl::StrJoin(scores, ","), " current ", current);
}

std::string CoinPileView::Summary() const {
  return absl::StrCat("top ", top, " | scores ", absl::StrJoin(scores, " "));
}

Seats CoinPileState::SeatsToAct() const {
  if (IsOver()) return {};
  return {p_.current};
}

void CoinPileState::LegalActions(Seat seat, std::vector<Action>* out) const {
  out->clear();
  if (IsOver() || seat != p_.current) return;
  for (int value = 1; value <= kValues; ++value) {
    if (p_.hands[seat][value - 1] > 0) out->push_back(Action(value));
  }
}

absl::Status CoinPileState::Apply(Seat seat, Action action) {
  if (IsOver() || seat != p_.current) {
    return absl::FailedPreconditionError(absl::StrCat("it is not seat ", seat, "'s turn"));
  }
  const std::uint64_t value = action.code();
  if (value < 1 || value > kValues || p_.hands[seat][value - 1] == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("seat ", seat, " holds no coin of value ", value));
  }
  const int coin = static_cast<int>(value);
  --p_.hands[seat][coin - 1];
  ++p_.pile[coin - 1];
  if (coin > p_.top) p_.scores[seat] += coin;
  p_.top = coin;
  if (!p_.stack.empty()) {
    ++p_.hands[seat][p_.stack.back() - 1];
    p_.stack.pop_back();
  }
  // The next seat that still holds a coin.
  for (int step = 1; step <= num_players(); ++step) {
    const Seat next = (seat + step) % num_players();
    if (Total(p_.hands[next]) > 0) {
      p_.current = next;
      break;
    }
  }
  return absl::OkStatus();
}

bool CoinPileState::IsOver() const {
  for (const Coins& hand : p_.hands) {
    if (Total(hand) > 0) return false;
  }
  return true;
}

std::vector<double> CoinPileState::Scores() const {
  return std::vector<double>(p_.scores.begin(), p_.scores.end());
}

std::vector<int> CoinPileState::Ranks() const { return RanksFromKeys(p_.scores); }

std::unique_ptr<View> CoinPileState::ViewFor(Seat observer) const {
  auto view = std::make_unique<CoinPileView>();
  view->observer = observer;
  if (observer >= 0 && observer < num_players()) view->own = p_.hands[observer];
  for (const Coins& hand : p_.hands) view->hand_sizes.push_back(Total(hand));
  view->stack_size = static_cast<int>(p_.stack.size());
  view->pile = p_.pile;
  view->top = p_.top;
  view->scores = p_.scores;
  view->current = p_.current;
  return view;
}

std::string CoinPileState::ActionToString(Seat, Action action) const {
  return absl::StrCat("play a ", action.code());
}

std::string CoinPileState::ToString() const {
  std::vector<std::string> hands;
  for (const Coins& hand : p_.hands) hands.push_back(Names(hand));
  return absl::StrCat("hands ", absl::StrJoin(hands, " / "), " | stack ",
                      absl::StrJoin(p_.stack, ","), " | pile ", Names(p_.pile), " top ", p_.top,
                      " | scores ", absl::StrJoin(p_.scores, ","), " | current ", p_.current);
}

std::vector<Zone> CoinPileState::Zones() const {
  std::vector<Zone> zones;
  for (int s = 0; s < num_players(); ++s) {
    Zone hand{.name = absl::StrCat("hand ", s)};
    for (int value = 1; value <= kValues; ++value) {
      hand.cards.insert(hand.cards.end(), p_.hands[s][value - 1], absl::StrCat(value));
    }
    zones.push_back(std::move(hand));
  }
  Zone stack{.name = "stack"};
  for (auto it = p_.stack.rbegin(); it != p_.stack.rend(); ++it) {
    stack.cards.push_back(absl::StrCat(*it));
  }
  zones.push_back(std::move(stack));
  return zones;
}

std::unique_ptr<State> CoinPileState::Clone() const {
  return std::make_unique<CoinPileState>(*this);
}

std::unique_ptr<Game> MakeGame() { return std::make_unique<CoinPileGame>(); }

}  // namespace hoard::engine::coin_pile
