#ifndef HOARD_ENGINE_GAME_H_
#define HOARD_ENGINE_GAME_H_

// The one interface every game implements.
//
// A Game describes a game (its id, player counts, options, ruleset version)
// and starts matches. A State is one match in progress: who must decide now,
// what each of them may do, applying a decision, and — once it is over —
// scores and ranks. It is a plain value: Clone() copies it, and nothing in it
// touches the network, a database or a clock.
//
// Simultaneous sealed decisions are modelled by SeatsToAct() naming several
// seats at once: each applies its own action, the state keeps them sealed
// (no view shows another seat's pending choice) and resolves them when the
// last one is in.
//
// Hidden information leaves a State only through View(): it is the single
// place that decides what a seat (or a spectator) may see.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/rng.h"

namespace hoard::engine {

// A seat at the table, 0-based in turn order.
using Seat = int;
// Observes a match without a seat: sees only what is public.
inline constexpr Seat kSpectator = -1;
// The seats that must decide now; empty once the match is over.
using Seats = absl::InlinedVector<Seat, 6>;

// An action, in the encoding of its game (opaque 64 bits). Two actions are
// the same decision exactly when their codes are equal.
class Action {
 public:
  constexpr Action() = default;
  constexpr explicit Action(std::uint64_t code) : code_(code) {}
  constexpr std::uint64_t code() const { return code_; }

  friend constexpr bool operator==(Action, Action) = default;
  friend constexpr auto operator<=>(Action, Action) = default;
  template <typename H>
  friend H AbslHashValue(H h, Action a) {
    return H::combine(std::move(h), a.code_);
  }

 private:
  std::uint64_t code_ = 0;
};

// What one observer sees of a state. Each game derives its own view type
// (see ComparableView); consumers that know the game downcast to it.
class View {
 public:
  virtual ~View() = default;
  // True when `other` is the same kind of view with identical contents.
  virtual bool Equals(const View& other) const = 0;
  // A readable multi-line rendering, for logs and test failures.
  virtual std::string ToString() const = 0;
  // One line of the public essentials, for a log after each action.
  virtual std::string Summary() const = 0;
};

// Derive a game's view from this with a defaulted operator== so that
// equality always covers every field:
//   struct MyView final : ComparableView<MyView> { ...; bool operator==(
//       const MyView&) const = default; };
template <typename Derived>
class ComparableView : public View {
 public:
  bool Equals(const View& other) const final {
    const auto* that = dynamic_cast<const Derived*>(&other);
    return that != nullptr && *that == static_cast<const Derived&>(*this);
  }
  // The base holds no data; lets Derived default its operator==.
  bool operator==(const ComparableView&) const { return true; }
};

// The cards of one place of the table, in order (a deck top first).
struct Zone {
  std::string name;
  std::vector<std::string> cards;
  bool operator==(const Zone&) const = default;
};

// How to start a match.
struct MatchConfig {
  int num_players = 0;
  std::uint64_t seed = 0;
  // Game options by name; options not given take their defaults.
  std::map<std::string, std::string> options;
};

struct GameOption {
  std::string name;
  std::string default_value;
  std::string description;
};

struct GameInfo {
  std::string id;    // "village"
  std::string name;  // "Please Don't Burn My Village!"
  int min_players = 0;
  int max_players = 0;
  std::string ruleset_version;  // changes whenever the rules' results change
  std::vector<GameOption> options;
  // No match of this game, under any accepted options, takes more actions
  // than this (all seats together).
  int max_actions = 0;
};

class State {
 public:
  virtual ~State() = default;

  virtual int num_players() const = 0;

  // The seats that must act now: one for an ordinary turn, several for a
  // sealed simultaneous decision (each seat listed has yet to answer).
  // Empty exactly when IsOver().
  virtual Seats SeatsToAct() const = 0;

  // Replaces *out with every legal action of `seat` (or, when
  // LegalActionsComplete(seat) is false, some legal actions as examples), in
  // a fixed order without duplicates. Empty unless `seat` is in
  // SeatsToAct(), and never empty when it is: the first action is the
  // seat's default action (played for it when it times out).
  virtual void LegalActions(Seat seat, std::vector<Action>* out) const = 0;
  std::vector<Action> LegalActions(Seat seat) const {
    std::vector<Action> out;
    LegalActions(seat, &out);
    return out;
  }

  // The seat's default action — the first of LegalActions(seat) — without
  // listing the others (a game may find it far faster than its list).
  // REQUIRES: `seat` is in SeatsToAct().
  virtual Action DefaultAction(Seat seat) const { return LegalActions(seat).front(); }

  // Whether LegalActions(seat) lists every legal action of `seat`. False
  // where the decision is too large to list (such as a proposal of how to
  // split a treasure): LegalActions(seat) then lists some valid examples,
  // Apply accepts any action the rules allow, listed or not, and
  // LegalActionsHint(seat) states the rules an action must follow. True for
  // a seat that may not act now (its empty list is complete). Like the
  // legal actions, it depends only on what `seat` can see.
  virtual bool LegalActionsComplete(Seat /*seat*/) const { return true; }

  // When LegalActionsComplete(seat) is false: the constraints an action of
  // `seat` must meet, in words for a bot author, enough to build any legal
  // action ("assign each of the 7 tokens to one of seats 0, 2, 3"). Empty
  // when the list is complete. Depends only on what `seat` can see.
  virtual std::string LegalActionsHint(Seat /*seat*/) const { return ""; }

  // Applies `seat`'s action. On error the state is unchanged and the status
  // names the broken rule: kFailedPrecondition when the seat may not act now
  // (not its turn, the match is over), kInvalidArgument for an illegal action.
  virtual absl::Status Apply(Seat seat, Action action) = 0;

  virtual bool IsOver() const = 0;

  // Final scores by seat. REQUIRES: IsOver().
  virtual std::vector<double> Scores() const = 0;
  // Final ranks by seat after the rules' tie-breaks: 1 is best, and players
  // still tied share a rank (1, 1, 3). REQUIRES: IsOver().
  virtual std::vector<int> Ranks() const = 0;

  // What `observer` (a seat or kSpectator) may see now. Two states that
  // differ only in what the observer cannot see give Equals() views.
  virtual std::unique_ptr<View> ViewFor(Seat observer) const = 0;

  // `action` in words, as `seat` would describe it ("bribe 2 swords").
  virtual std::string ActionToString(Seat seat, Action action) const = 0;

  // The full state, canonically: two states are equal exactly when their
  // strings are. Reveals everything; never send it to a player.
  virtual std::string ToString() const = 0;

  // A 64-bit fingerprint of the full state — of what ToString() shows — the
  // same on every machine: equal states give equal fingerprints, and states
  // whose strings differ give different ones but for a hash collision.
  // Records keep one after every action. The default hashes ToString(); a
  // game overrides it with a hash of its packed state (engine/state_packer.h)
  // that renders no text.
  virtual std::uint64_t Fingerprint() const;

  // Every card's place, in order (the record keeps this for the start).
  virtual std::vector<Zone> Zones() const = 0;

  virtual std::unique_ptr<State> Clone() const = 0;
};

class Game {
 public:
  virtual ~Game() = default;
  virtual const GameInfo& info() const = 0;
  // Starts a match; kInvalidArgument for an unsupported player count or a
  // bad option (the message names it).
  virtual absl::StatusOr<std::unique_ptr<State>> NewMatch(const MatchConfig& config) const = 0;
};

// Checks `num_players` and that every option in `config` is one of
// `info.options`; the shared first step of every Game::NewMatch.
absl::Status ValidateConfig(const GameInfo& info, const MatchConfig& config);

// The value of option `name`: from the config, else its default.
// REQUIRES: `name` is one of info.options.
std::string OptionValue(const GameInfo& info, const MatchConfig& config, const std::string& name);

// The value of option `name`, which takes one of two values: false for
// `first`, true for `second`; kInvalidArgument naming both otherwise.
// REQUIRES: `name` is one of info.options.
absl::StatusOr<bool> TwoWayOption(const GameInfo& info, const MatchConfig& config,
                                  const std::string& name, const std::string& first,
                                  const std::string& second);

// The same, into a rule whose values 0 and 1 are `first` and `second`.
template <typename Rule>
absl::Status ReadTwoWayOption(const GameInfo& info, const MatchConfig& config,
                              const std::string& name, const std::string& first,
                              const std::string& second, Rule* out) {
  absl::StatusOr<bool> is_second = TwoWayOption(info, config, name, first, second);
  if (!is_second.ok()) return is_second.status();
  *out = static_cast<Rule>(*is_second);
  return absl::OkStatus();
}

// Competition ranks (1, 1, 3) from per-seat keys where a larger key is
// better; equal keys share a rank.
template <typename Key>
std::vector<int> RanksFromKeys(const std::vector<Key>& keys) {
  std::vector<int> ranks(keys.size(), 1);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    for (std::size_t j = 0; j < keys.size(); ++j) {
      if (keys[j] > keys[i]) ++ranks[i];
    }
  }
  return ranks;
}

}  // namespace hoard::engine

#endif  // HOARD_ENGINE_GAME_H_
