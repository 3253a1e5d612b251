// hoard_engine: Hoard's engine as a Python module (pybind11).
//
//   import hoard_engine
//   match = hoard_engine.Match("village", players=4, seed=7)
//   while not match.is_over():
//       seat = match.seats_to_act()[0]
//       match.apply(seat, match.legal_actions(seat)[0])
//   match.scores(), match.ranks()
//
// Actions are the engine's 64-bit codes; views and typed actions are the
// serialized hoard.v1 messages the wire carries (hoard_bot.local turns them
// into the Python classes of hoard_bot.stubs). Bad input — an unknown game,
// a bad option, a seat not at the table, an illegal action, a malformed
// message — raises hoard_engine.HoardError (a ValueError) with the engine's
// message; nothing a caller passes reaches a CHECK. docs/bots.md ("Train
// locally") is the guide.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bots/bot.h"
#include "engine/codec.h"
#include "engine/game.h"
#include "engine/play_by_play.h"
#include "engine/record.h"
#include "engine/registry.h"
#include "engine/rng.h"
#include "hoard/v1/arena.pb.h"

namespace py = pybind11;

namespace hoard::python {
namespace {

// hoard_engine.HoardError, set when the module is imported.
PyObject* g_error = nullptr;

[[noreturn]] void Raise(const std::string& message) {
  PyErr_SetString(g_error, message.c_str());
  throw py::error_already_set();
}

[[noreturn]] void Raise(const absl::Status& status) { Raise(std::string(status.message())); }

const engine::Game& GameOrRaise(const std::string& id) {
  absl::StatusOr<const engine::Game*> game = engine::FindGame(id);
  if (!game.ok()) Raise(game.status());
  return **game;
}

py::dict GameInfoDict(const engine::Game& game) {
  const engine::GameInfo& info = game.info();
  py::list options;
  for (const engine::GameOption& option : info.options) {
    py::dict entry;
    entry["name"] = option.name;
    entry["default"] = option.default_value;
    entry["description"] = option.description;
    options.append(entry);
  }
  py::dict out;
  out["id"] = info.id;
  out["name"] = info.name;
  out["min_players"] = info.min_players;
  out["max_players"] = info.max_players;
  out["ruleset_version"] = info.ruleset_version;
  out["options"] = options;
  out["max_actions"] = info.max_actions;
  out["bots"] = bots::BuiltinBotNames(game);
  return out;
}

// One match: the engine's State with what a caller needs around it.
class Match {
 public:
  Match(const std::string& game, int players, std::uint64_t seed,
        const std::map<std::string, std::string>& options)
      : game_(&GameOrRaise(game)),
        config_{.num_players = players, .seed = seed, .options = options} {
    absl::StatusOr<std::unique_ptr<engine::State>> state = game_->NewMatch(config_);
    if (!state.ok()) Raise(state.status());
    state_ = *std::move(state);
  }

  Match(const Match& other)
      : game_(other.game_),
        config_(other.config_),
        state_(other.state_->Clone()),
        history_(other.history_),
        play_by_play_(other.play_by_play_),
        told_(other.told_),
        sampled_(other.sampled_) {}

  // A match made from a state (a sample): its history is unknown.
  Match(const engine::Game* game, engine::MatchConfig config, std::unique_ptr<engine::State> state)
      : game_(game), config_(std::move(config)), state_(std::move(state)), sampled_(true) {}

  const engine::Game& game() const { return *game_; }
  const engine::State& state() const { return *state_; }
  engine::State& mutable_state() { return *state_; }
  const engine::MatchConfig& config() const { return config_; }
  bool sampled() const { return sampled_; }
  const std::vector<std::pair<int, std::uint64_t>>& history() const { return history_; }

  std::vector<int> SeatsToAct() const {
    const engine::Seats seats = state_->SeatsToAct();
    return {seats.begin(), seats.end()};
  }

  // kInvalidArgument-like error unless 0 <= seat < players (or the
  // spectator, where `spectator_ok`).
  void CheckSeat(int seat, bool spectator_ok) const {
    if (spectator_ok && seat == engine::kSpectator) return;
    if (seat < 0 || seat >= state_->num_players()) {
      Raise(absl::StrFormat("seat %d is not at this table (seats 0 to %d%s)", seat,
                            state_->num_players() - 1, spectator_ok ? ", or -1 to spectate" : ""));
    }
  }

  // The seat's legal actions; a seat not at the table raises.
  std::vector<engine::Action> Legal(int seat) const {
    CheckSeat(seat, false);
    std::vector<engine::Action> legal;
    state_->LegalActions(seat, &legal);
    return legal;
  }

  std::vector<std::uint64_t> LegalActions(int seat) const {
    const std::vector<engine::Action> legal = Legal(seat);
    std::vector<std::uint64_t> codes;
    codes.reserve(legal.size());
    for (engine::Action a : legal) codes.push_back(a.code());
    return codes;
  }

  // Plays `seat`'s action, and tells the table of it as the server does
  // (engine/play_by_play.h: a sealed answer is told once its decision is
  // complete).
  void Apply(int seat, std::uint64_t code) {
    CheckSeat(seat, false);
    const engine::Action action(code);
    std::vector<engine::Action> legal;
    state_->LegalActions(seat, &legal);
    if (std::find(legal.begin(), legal.end(), action) == legal.end()) {
      // Not listed: the rules decide, on a copy, before the action is put
      // in words (a code that means nothing has no words).
      if (absl::Status s = state_->Clone()->Apply(seat, action); !s.ok()) {
        Raise(absl::StrCat("seat ", seat, ": ", s.message()));
      }
    }
    std::string text = state_->ActionToString(seat, action);
    std::vector<engine::ToldAction> told =
        play_by_play_.Tell(*state_, seat, action, std::move(text), /*by_default=*/false);
    if (absl::Status s = state_->Apply(seat, action); !s.ok()) {
      Raise(absl::StrCat("seat ", seat, ": ", s.message()));
    }
    history_.emplace_back(seat, code);
    for (engine::ToldAction& item : told) told_.push_back(std::move(item));
  }

  // What the table was told, from item `start` on: (step, seat, action code
  // or None while sealed, text).
  py::list Told(std::size_t start) const {
    py::list out;
    for (std::size_t i = start; i < told_.size(); ++i) {
      const engine::ToldAction& item = told_[i];
      out.append(py::make_tuple(item.step, item.seat,
                                item.action ? py::cast(item.action->code()) : py::none(),
                                item.text));
    }
    return out;
  }

  // Every legal action of `seat` in words, in legal_actions' order.
  std::vector<std::string> LegalActionTexts(int seat) const {
    const std::vector<engine::Action> legal = Legal(seat);
    std::vector<std::string> texts;
    texts.reserve(legal.size());
    for (engine::Action a : legal) texts.push_back(state_->ActionToString(seat, a));
    return texts;
  }

  // `code` in words as `seat` says it; only for an action the seat may play
  // now (or played last), since another code may mean nothing.
  std::string ActionText(int seat, std::uint64_t code) const {
    CheckSeat(seat, false);
    std::unique_ptr<engine::State> trial = state_->Clone();
    if (absl::Status s = trial->Apply(seat, engine::Action(code)); !s.ok()) {
      Raise(absl::StrCat("seat ", seat, ": ", s.message()));
    }
    return state_->ActionToString(seat, engine::Action(code));
  }

  const engine::GameCodec& Codec() const {
    absl::StatusOr<const engine::GameCodec*> codec = engine::FindCodec(game_->info().id);
    if (!codec.ok()) Raise(codec.status());
    return **codec;
  }

  py::bytes View(int observer) const {
    CheckSeat(observer, true);
    hoard::v1::View view;
    Codec().ViewToProto(*state_->ViewFor(observer), &view);
    return py::bytes(view.SerializeAsString());
  }

  std::vector<py::bytes> LegalActionMessages(int seat) const {
    const engine::GameCodec& codec = Codec();
    std::vector<py::bytes> out;
    for (std::uint64_t code : LegalActions(seat)) {
      hoard::v1::Action action;
      codec.ActionToProto(engine::Action(code), &action);
      out.emplace_back(action.SerializeAsString());
    }
    return out;
  }

  std::uint64_t ActionFromMessage(const py::bytes& message) const {
    hoard::v1::Action action;
    if (!action.ParseFromString(std::string(message))) {
      Raise("not a serialized hoard.v1.Action");
    }
    absl::StatusOr<engine::Action> code = Codec().ActionFromProtoIn(action, *state_);
    if (!code.ok()) Raise(code.status());
    return code->code();
  }

  py::bytes ActionMessage(std::uint64_t code) const {
    hoard::v1::Action action;
    Codec().ActionToProto(engine::Action(code), &action);
    return py::bytes(action.SerializeAsString());
  }

  void CheckOver() const {
    if (!state_->IsOver()) Raise("the match is not over yet");
  }

 private:
  const engine::Game* game_;
  engine::MatchConfig config_;
  std::unique_ptr<engine::State> state_;
  std::vector<std::pair<int, std::uint64_t>> history_;
  engine::PlayByPlay play_by_play_;
  std::vector<engine::ToldAction> told_;
  bool sampled_ = false;
};

// The action `bot` chooses for `seat` of `state`. REQUIRES: the seat is to act.
engine::Action Choose(engine::Bot& bot, const engine::State& state, int seat,
                      std::vector<engine::Action>& legal) {
  state.LegalActions(seat, &legal);
  if (!bot.ReadsView()) return bot.Choose(engine::NoView(), legal);
  return bot.Choose(*state.ViewFor(seat), legal);
}

std::unique_ptr<engine::Bot> BotOrRaise(const std::string& name, const engine::Game& game,
                                        std::uint64_t seed) {
  absl::StatusOr<std::unique_ptr<engine::Bot>> bot = bots::MakeBot(name, game, seed);
  if (!bot.ok()) Raise(bot.status());
  return *std::move(bot);
}

// A built-in bot: it decides from what its seat sees, as on the server.
class Bot {
 public:
  Bot(const std::string& name, const std::string& game, std::uint64_t seed)
      : name_(name), game_(&GameOrRaise(game)), bot_(BotOrRaise(name, *game_, seed)) {}

  std::uint64_t Choose(const Match& match, int seat) {
    if (&match.game() != game_) {
      Raise(absl::StrCat("this bot plays ", game_->info().id, ", not ", match.game().info().id));
    }
    match.CheckSeat(seat, false);
    const engine::Seats seats = match.state().SeatsToAct();
    if (std::find(seats.begin(), seats.end(), seat) == seats.end()) {
      Raise(absl::StrCat("seat ", seat, " has no decision to make now"));
    }
    std::vector<engine::Action> legal;
    engine::Action chosen;
    {
      py::gil_scoped_release release;  // a search may take a while
      chosen = hoard::python::Choose(*bot_, match.state(), seat, legal);
    }
    return chosen.code();
  }

  const std::string& name() const { return name_; }

 private:
  std::string name_;
  const engine::Game* game_;
  std::unique_ptr<engine::Bot> bot_;
};

// Plays `matches` matches of built-in bots without returning to Python:
// bots[s] in seat s, a fresh bot per match, each match's seed and each bot's
// drawn in turn from a generator seeded with `seed`.
py::dict PlayMatches(const std::string& game_id, const std::vector<std::string>& names, int matches,
                     std::uint64_t seed, const std::map<std::string, std::string>& options) {
  const engine::Game& game = GameOrRaise(game_id);
  const int players = static_cast<int>(names.size());
  if (matches < 0) Raise("matches must not be negative");
  engine::MatchConfig config{.num_players = players, .options = options};
  if (absl::Status s = engine::ValidateConfig(game.info(), config); !s.ok()) Raise(s);
  for (const std::string& name : names) BotOrRaise(name, game, 0);  // each name exists
  std::vector<std::vector<double>> scores(matches);
  std::vector<std::vector<int>> ranks(matches);
  std::vector<int> actions(matches, 0);
  std::string error;
  {
    py::gil_scoped_release release;
    engine::Rng rng(seed);
    std::vector<engine::Action> legal;
    std::vector<std::unique_ptr<engine::Bot>> seated(players);
    for (int m = 0; m < matches && error.empty(); ++m) {
      config.seed = rng.Fork();
      for (int s = 0; s < players; ++s) seated[s] = *bots::MakeBot(names[s], game, rng.Fork());
      absl::StatusOr<std::unique_ptr<engine::State>> state = game.NewMatch(config);
      if (!state.ok()) {
        error = std::string(state.status().message());
        break;
      }
      engine::State& match = **state;
      while (!match.IsOver() && error.empty()) {
        for (engine::Seat s : match.SeatsToAct()) {
          const engine::Action action = Choose(*seated[s], match, s, legal);
          if (absl::Status applied = match.Apply(s, action); !applied.ok()) {
            error = absl::StrCat("bot '", names[s], "' in seat ", s, ": ", applied.message());
            break;
          }
          ++actions[m];
        }
      }
      if (error.empty()) {
        scores[m] = match.Scores();
        ranks[m] = match.Ranks();
      }
    }
  }
  if (!error.empty()) Raise(error);
  py::dict out;
  out["scores"] = scores;
  out["ranks"] = ranks;
  out["actions"] = actions;
  return out;
}

std::string Hex(std::uint64_t fingerprint) { return absl::StrFormat("%016x", fingerprint); }

}  // namespace
}  // namespace hoard::python

PYBIND11_MODULE(hoard_engine, m) {
  using hoard::python::Bot;
  using hoard::python::Match;
  namespace engine = hoard::engine;
  m.doc() = "Hoard's engine: its games, matches, deals and built-in bots, at engine speed.";

  struct HoardError {};  // only names the Python type; nothing throws it
  static py::exception<HoardError> error(m, "HoardError", PyExc_ValueError);
  hoard::python::g_error = error.ptr();

  m.attr("SPECTATOR") = engine::kSpectator;
  m.def(
      "games",
      [] {
        py::list out;
        for (const engine::Game* game : engine::AllGames()) {
          out.append(hoard::python::GameInfoDict(*game));
        }
        return out;
      },
      "Every game: id, name, player counts, ruleset version, options and built-in bots.");
  m.def(
      "game",
      [](const std::string& id) {
        return hoard::python::GameInfoDict(hoard::python::GameOrRaise(id));
      },
      py::arg("id"), "One game's description, as games() gives it.");

  py::class_<Match>(m, "Match", "One match of a game: whose turn, legal actions, views, apply.")
      .def(py::init<const std::string&, int, std::uint64_t,
                    const std::map<std::string, std::string>&>(),
           py::arg("game"), py::arg("players"), py::arg("seed") = 0,
           py::arg("options") = std::map<std::string, std::string>())
      .def_property_readonly("game", [](const Match& match) { return match.game().info().id; })
      .def_property_readonly("players",
                             [](const Match& match) { return match.state().num_players(); })
      .def_property_readonly("seed", [](const Match& match) { return match.config().seed; })
      .def_property_readonly("options", [](const Match& match) { return match.config().options; })
      .def_property_readonly("history", &Match::history,
                             "Every action applied here, (seat, code), oldest first (empty for "
                             "a sample, whose past is unknown).")
      .def("seats_to_act", &Match::SeatsToAct,
           "The seats that must decide now: one for a turn, several for a sealed decision; "
           "empty once the match is over.")
      .def("is_over", [](const Match& match) { return match.state().IsOver(); })
      .def("legal_actions", &Match::LegalActions, py::arg("seat"),
           "The seat's legal action codes, the default first (examples only where "
           "legal_actions_complete is False).")
      .def(
          "legal_actions_complete",
          [](const Match& match, int seat) {
            match.CheckSeat(seat, false);
            return match.state().LegalActionsComplete(seat);
          },
          py::arg("seat"))
      .def(
          "constraints",
          [](const Match& match, int seat) {
            match.CheckSeat(seat, false);
            return match.state().LegalActionsHint(seat);
          },
          py::arg("seat"), "What makes an action legal, where the list holds only examples.")
      .def("apply", &Match::Apply, py::arg("seat"), py::arg("action"),
           "Plays the seat's action (a code); HoardError names the broken rule.")
      .def("action_text", &Match::ActionText, py::arg("seat"), py::arg("action"),
           "An action the seat may play now, in words.")
      .def("legal_action_texts", &Match::LegalActionTexts, py::arg("seat"),
           "The seat's legal actions in words, in legal_actions' order.")
      .def("told", &Match::Told, py::arg("start") = 0,
           "What the table was told of the play from item `start` on, as the server tells "
           "it: (step, seat, action code or None for a sealed answer not yet revealed, text).")
      .def("view", &Match::View, py::arg("observer"),
           "What a seat (or SPECTATOR) sees: a serialized hoard.v1.View, as the server sends it.")
      .def("legal_action_messages", &Match::LegalActionMessages, py::arg("seat"),
           "The legal actions as serialized hoard.v1.Action messages, in legal_actions' order.")
      .def("action_from_message", &Match::ActionFromMessage, py::arg("message"),
           "The code of a serialized hoard.v1.Action in this position.")
      .def("action_message", &Match::ActionMessage, py::arg("action"),
           "An action code as a serialized hoard.v1.Action.")
      .def(
          "scores",
          [](const Match& match) {
            match.CheckOver();
            return match.state().Scores();
          },
          "Final scores by seat.")
      .def(
          "ranks",
          [](const Match& match) {
            match.CheckOver();
            return match.state().Ranks();
          },
          "Final ranks by seat, 1 best; ties share a rank.")
      .def(
          "fingerprint",
          [](const Match& match) { return hoard::python::Hex(match.state().Fingerprint()); },
          "The full state's fingerprint, 16 hex digits, as a record's state_after.")
      .def(
          "text", [](const Match& match) { return match.state().ToString(); },
          "The full state in words: every hidden card. Never show it to a player.")
      .def("clone", [](const Match& match) { return Match(match); })
      .def("__copy__", [](const Match& match) { return Match(match); })
      .def(
          "sample",
          [](const Match& match, int seat, std::uint64_t seed) {
            match.CheckSeat(seat, false);
            const engine::Sampler* deal = engine::DealFor(match.game());
            engine::Rng rng(seed);
            absl::StatusOr<std::unique_ptr<engine::State>> sampled =
                deal->Sample(*match.state().ViewFor(seat), rng);
            if (!sampled.ok()) hoard::python::Raise(sampled.status());
            return Match(&match.game(), match.config(), *std::move(sampled));
          },
          py::arg("seat"), py::arg("seed"),
          "A whole match the seat cannot tell from this one: its hidden cards and sealed "
          "answers drawn at random (for search).")
      .def("__repr__", [](const Match& match) {
        return absl::StrCat("<hoard_engine.Match ", match.game().info().id, " ",
                            match.state().num_players(), " players, seed ", match.config().seed,
                            ", ", match.history().size(), " actions",
                            match.state().IsOver() ? ", over" : "", ">");
      });

  py::class_<Bot>(m, "Bot", "A built-in bot (random, first, heuristic, mcts, mcts-N).")
      .def(py::init<const std::string&, const std::string&, std::uint64_t>(), py::arg("name"),
           py::arg("game"), py::arg("seed") = 0)
      .def_property_readonly("name", &Bot::name)
      .def("choose", &Bot::Choose, py::arg("match"), py::arg("seat"),
           "The bot's action code for the seat, from what the seat sees.");

  m.def("play", &hoard::python::PlayMatches, py::arg("game"), py::arg("bots"),
        py::arg("matches") = 1, py::arg("seed") = 0,
        py::arg("options") = std::map<std::string, std::string>(),
        "Plays many matches of built-in bots (bots[s] in seat s) in C++ and returns "
        "{'scores': [...], 'ranks': [...], 'actions': [...]}, one entry per match.");
}
