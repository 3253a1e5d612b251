#ifndef HOARD_ENGINE_BOT_H_
#define HOARD_ENGINE_BOT_H_

// A player that decides inside Hoard, without the network.
//
// A bot decides from exactly what its seat may see — a View and the seat's
// legal actions — never from the State, so a built-in bot can no more cheat
// than a remote one. Games bring their own rule-of-thumb bot (a heuristic,
// registered with the game); bots/ holds the bots every game shares (random,
// first, the search bot) and makes them by name.

#include <span>
#include <string>

#include "engine/game.h"

namespace hoard::engine {

class Bot {
 public:
  virtual ~Bot() = default;
  // Picks an action for the seat whose view is `view`: one of `legal` (never
  // empty), or, where the seat's list holds only examples
  // (State::LegalActionsComplete), any action the rules allow.
  virtual Action Choose(const View& view, std::span<const Action> legal) = 0;
  // Whether Choose reads its view. A bot that does not (it picks from the
  // legal list alone) may be given any view, so a caller playing many
  // matches can skip building one.
  virtual bool ReadsView() const { return true; }
  // Whether the bot decides at once: in about the time the rules take to
  // list its actions, with no search and no clock of its own. A match whose
  // every seat is such a bot ends microseconds after it starts, so a host
  // may play it through in one go where it plays.
  virtual bool Instant() const { return false; }
  // Whether the bot always plays its seat's default action (the first
  // legal action): a host may give it no list and play
  // State::DefaultAction, which Choose would pick from any list.
  virtual bool PlaysDefault() const { return false; }
};

// The view given to a bot that does not read its view (Bot::ReadsView), in
// place of one built for nothing. It equals only itself and reads empty.
inline const View& NoView() {
  class Empty final : public View {
   public:
    bool Equals(const View& other) const override { return &other == this; }
    std::string ToString() const override { return ""; }
    std::string Summary() const override { return ""; }
  };
  static const Empty kEmpty;
  return kEmpty;
}

}  // namespace hoard::engine

#endif  // HOARD_ENGINE_BOT_H_
