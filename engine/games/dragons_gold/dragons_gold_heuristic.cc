// The heuristic player: values every token by what it adds to its own
// estimated score, then slays dragons it can take alone, joins a kill
// rather than leave it to others, proposes divisions that keep what it
// values most while offering the others a fair-looking share, and votes
// for a division only when its share is fair (or the talk is about to fail).
// At the market it offers the bundle-for-bundle swap that gains it most
// among those it reckons the other player gains from too (judged from what
// the record shows behind that player's screen), and accepts an offer that
// raises its own estimated score.

#include "engine/games/dragons_gold/dragons_gold_heuristic.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "engine/games/dragons_gold/dragons_gold.h"
#include "engine/rng.h"

namespace hoard::engine::dragons_gold {
namespace {

using engine::Action;
using engine::Seat;
namespace dg = engine::dragons_gold;
using dg::Move;
using dg::TokenCounts;
using Kind = Move::Kind;

int Total(const TokenCounts& counts) {
  int total = 0;
  for (int c : counts) total += c;
  return total;
}

int AttackTotal(const dg::FaceUpDragon& dragon) {
  int total = 0;
  for (const dg::Attacker& a : dragon.attackers) total += dg::kAdventurerStrength[a.adventurer];
  return total;
}

// What a token is worth to a player whose screen we cannot see.
constexpr std::array<double, dg::kNumTokenKinds> kGenericValue = {1,   3,   1.5, 2.5, 2.5,
                                                                  2.5, 2.5, 3,   10};
// What a magic object drawn for a red token is worth.
constexpr double kObjectValue = 1.5;

// The seat's estimate of its final score from a screen, given what it can
// infer about the others' screens: base points, straights, and a majority
// per colour weighted by the chance of holding it.
class Valuer {
 public:
  // `own`: the screen to value from (another seat's, as far as the record
  // shows it); by default the seat's own, as the view shows it.
  Valuer(const dg::DragonsGoldView& view, Seat me, const TokenCounts* own = nullptr)
      : view_(view), me_(me) {
    const int n = static_cast<int>(view.players.size());
    own_ = own != nullptr ? *own : view.players[me].tokens.value_or(TokenCounts{});
    // The tokens nobody has shown: in the bag or behind other screens.
    TokenCounts unseen = dg::kBagContents;
    auto take = [&](const TokenCounts& shown) {
      for (int k = 0; k < dg::kNumTokenKinds; ++k) unseen[k] -= shown[k];
    };
    for (const dg::FaceUpDragon& d : view.dragons) take(d.tokens);
    take(view.removed);
    take(view.negotiation.tokens);
    take(own_);
    const int unseen_total = std::max(1, Total(unseen));
    majority_ = !view.rules.advanced_scoring ? (n == 3   ? 15
                                                : n == 6 ? 10
                                                         : 12)
                                             : (n == 3   ? 12
                                                : n == 6 ? 8
                                                         : 10);
    for (int c = 0; c < dg::kNumGemColors; ++c) {
      const int color = dg::kFirstGem + c;
      const double q = std::max(0, unseen[color]) / static_cast<double>(unseen_total);
      double rival = 0;
      for (Seat s = 0; s < n; ++s) {
        if (s == me) continue;
        const double expected = view.players[s].token_count * q;
        // The most any rival holds is more than the mean of one.
        rival = std::max(rival, expected + 0.7 * std::sqrt(expected));
      }
      rival_[c] = rival;
    }
    for (int k = 0; k < dg::kNumTokenKinds; ++k) {
      unseen_share_[k] = std::max(0, unseen[k]) / static_cast<double>(unseen_total);
    }
    // Rollouts value thousands of screens per decision: the majority terms
    // and the seat's own score are worked out once.
    for (int c = 0; c < dg::kNumGemColors; ++c) {
      for (int m = 0; m < kMajorityTable; ++m) majority_term_[c][m] = MajorityTermOf(c, m);
    }
    own_score_ = Score(own_);
  }

  const TokenCounts& own() const { return own_; }

  double Score(const TokenCounts& h) const {
    const bool advanced = view_.rules.advanced_scoring;
    double score =
        h[dg::kSilver] + 3.0 * h[dg::kGold] + h[dg::kRed] + h[dg::kBlack] * (advanced ? 19.0 : 7.0);
    if (advanced && h[dg::kBlack] > 0) return score;  // cursed: no bonuses
    if (advanced) {
      int sets = h[dg::kFirstGem];
      for (int c = 0; c < dg::kNumGemColors; ++c) sets = std::min(sets, h[dg::kFirstGem + c]);
      int toward = 0;  // colours already beyond the last full set
      for (int c = 0; c < dg::kNumGemColors; ++c) toward += h[dg::kFirstGem + c] > sets;
      score += dg::kStraightBonus * (sets + 0.1 * toward);
    }
    for (int c = 0; c < dg::kNumGemColors; ++c) {
      const int m = h[dg::kFirstGem + c];
      if (m == 0) continue;
      score += m < kMajorityTable ? majority_term_[c][m] : MajorityTermOf(c, m);
    }
    return score;
  }

  // What `gain` adds to the seat's screen.
  double Gain(const TokenCounts& gain) const {
    TokenCounts h = own_;
    for (int k = 0; k < dg::kNumTokenKinds; ++k) h[k] += gain[k];
    return Score(h) - own_score_;
  }
  // What one token of `kind` adds, or (negative) what losing one costs.
  double Marginal(int kind, int delta = 1) const {
    TokenCounts gain{};
    gain[kind] = delta;
    if (own_[kind] + delta < 0) return 0;
    return Gain(gain);
  }
  // The chance that a hidden token is of `kind`.
  double UnseenShare(int kind) const { return unseen_share_[kind]; }
  // What a token drawn blind is worth on average.
  double BlindToken() const {
    double value = 0;
    for (int k = 0; k < dg::kNumTokenKinds; ++k) value += unseen_share_[k] * Marginal(k);
    return value;
  }

 private:
  const dg::DragonsGoldView& view_;
  Seat me_;
  TokenCounts own_{};
  // What holding `m` gems of colour `c` adds by the chance of its majority.
  double MajorityTermOf(int c, int m) const {
    const double lead = m - rival_[c] - (view_.rules.advanced_scoring ? 0.5 : 0.0);
    return majority_ / (1.0 + std::exp(-1.3 * lead));
  }

  // Every count of one colour the bag can give (larger counts are worked out).
  static constexpr int kMajorityTable = [] {
    int most = 0;
    for (int c = 0; c < dg::kNumGemColors; ++c) {
      most = std::max(most, dg::kBagContents[dg::kFirstGem + c]);
    }
    return most + 1;
  }();
  std::array<double, dg::kNumGemColors> rival_{};
  std::array<std::array<double, kMajorityTable>, dg::kNumGemColors> majority_term_{};
  double own_score_ = 0;
  std::array<double, dg::kNumTokenKinds> unseen_share_{};
  double majority_ = 0;
};

class HeuristicBot final : public Bot {
 public:
  explicit HeuristicBot(std::uint64_t seed) : rng_(seed) {}

  Action Choose(const engine::View& view, std::span<const Action> legal) override {
    const auto* v = dynamic_cast<const dg::DragonsGoldView*>(&view);
    if (v == nullptr || v->observer < 0 || v->observer >= static_cast<int>(v->players.size()) ||
        !v->players[v->observer].tokens) {
      return legal[0];
    }
    const Valuer valuer(*v, v->observer);
    std::optional<Action> built;
    if (v->phase == dg::Phase::kPropose) built = Propose(*v, valuer, legal);
    if (v->phase == dg::Phase::kMarketOffer) built = Offer(*v, valuer, legal);
    if (built) return *built;
    // Otherwise the best-scoring listed action; ties go to the generator.
    double best = -1e18;
    int count = 0;
    Action choice = legal[0];
    for (Action action : legal) {
      const std::optional<Move> move = Move::Decode(action);
      if (!move) continue;
      const double score = Evaluate(*v, valuer, *move);
      if (score > best + 1e-9) {
        best = score;
        choice = action;
        count = 1;
      } else if (score > best - 1e-9 && rng_.Uniform(++count) == 0) {
        choice = action;
      }
    }
    return choice;
  }

 private:
  double Evaluate(const dg::DragonsGoldView& v, const Valuer& valuer, const Move& move) const {
    const Seat me = v.observer;
    switch (move.kind) {
      case Kind::kAttack:
        return AttackValue(v, v.dragons, valuer, me, move);
      case Kind::kUseObject:
        return ObjectValue(v, valuer, move);
      case Kind::kPropose:
        return ProposalValue(v, valuer, move);
      case Kind::kAccept:
        return AcceptMargin(v, valuer);
      case Kind::kReject:
        return 0;
      case Kind::kSteal: {
        // From a share, every listed kind lies in plain view: a sure gain.
        if (v.rules.thieves_steal_from_share) return valuer.Marginal(move.token);
        // From a screen, a named kind the victim lacks turns into a random token.
        const int victim_tokens = v.players[v.steals.front().victim].token_count;
        const double has =
            1.0 - std::pow(1.0 - valuer.UnseenShare(move.token), std::max(1, victim_tokens));
        return has * valuer.Marginal(move.token) + (1.0 - has) * valuer.BlindToken();
      }
      case Kind::kDecoyKeep: {
        // A random token lost (from our share of this dragon, or from
        // behind our screen under thief_steals=screen), and the purse kept.
        double loss = 0;
        TokenCounts own = valuer.own();
        if (v.rules.thieves_steal_from_share) {
          const dg::Negotiation& n = v.negotiation;
          const auto it = std::find(n.contributors.begin(), n.contributors.end(), me);
          const std::size_t index = it - n.contributors.begin();
          own = index < n.shares.size() ? n.shares[index] : TokenCounts{};
        }
        const int total = std::max(1, Total(own));
        for (int k = 0; k < dg::kNumTokenKinds; ++k) {
          if (own[k] > 0) loss += own[k] * valuer.Marginal(k, -1) / total;
        }
        return loss + 1.0;
      }
      case Kind::kDecoyGive:
        return valuer.Marginal(move.token, -1);
      case Kind::kMarketPass:
        return 0;
      case Kind::kMarketOffer: {
        // A listed example (Offer builds its own): worth what it gains if
        // the other player holds what it asks.
        if (v.players[move.target].token_count == 0) return -1;
        double has = 1.0;
        for (int k = 0; k < dg::kNumTokenKinds; ++k) {
          for (int i = 0; i < move.get[k]; ++i) {
            has *= 1.0 - std::pow(1.0 - valuer.UnseenShare(k), v.players[move.target].token_count);
          }
        }
        return valuer.Gain(Difference(move.get, move.give)) * has - 0.5;
      }
      case Kind::kMarketAccept:
        return valuer.Gain(Difference(v.offer.give, v.offer.get)) - kAcceptMargin;
      case Kind::kMarketRefuse:
        return 0;
    }
    return 0;
  }

  // The value of sending `move`'s adventurers against its dragon, with the
  // table as `dragons` (a copy, when weighing an object first).
  static double AttackValue(
      const dg::DragonsGoldView& v, const std::array<dg::FaceUpDragon, dg::kFaceUpDragons>& dragons,
      const Valuer& valuer, Seat me, const Move& move,
      const std::array<dg::AdventurerState, dg::kNumAdventurers>* team = nullptr) {
    if (team == nullptr) team = &v.players[me].adventurers;
    const dg::FaceUpDragon& dragon = dragons[move.slot];
    if (dragon.card < 0) return -1e9;
    const int strength = dragon.strength();
    const int before = AttackTotal(dragon);
    int sent = dg::kAdventurerStrength[move.adventurer];
    if (move.second >= 0) sent += dg::kAdventurerStrength[move.second];
    const int hidden = std::min(dg::kDragons[dragon.card].hidden, v.bag_size);
    const double treasure = valuer.Gain(dragon.tokens) + hidden * valuer.BlindToken();
    int mine = sent;
    bool my_thief = move.adventurer == dg::kThief || move.second == dg::kThief;
    std::array<bool, 6> partner{};
    int others_thieves = 0;
    for (const dg::Attacker& a : dragon.attackers) {
      if (a.seat == me) {
        mine += dg::kAdventurerStrength[a.adventurer];
        my_thief = my_thief || a.adventurer == dg::kThief;
      } else {
        if (a.seat < 6) partner[a.seat] = true;
        others_thieves += a.adventurer == dg::kThief;
      }
    }
    const int partners = static_cast<int>(std::count(partner.begin(), partner.end(), true));
    const double card_cost = move.second >= 0 ? 2.0 : 0.0;
    if (before + sent >= strength) {
      // Slain now: alone it is all ours; shared, the slayer proposes first.
      const int k = partners + 1;
      double gain = k == 1 ? treasure : treasure / k * 1.15 * 0.8;
      if (my_thief) gain += partners * 1.5;
      gain -= others_thieves * 1.5;
      // Overkill wastes strength that could have served elsewhere.
      return 5.0 + gain - 0.35 * sent - 0.3 * (before + sent - strength) - card_cost;
    }
    // A commitment: the gap left must be filled, by us or by others who
    // then share (and propose first).
    const int gap = strength - before - sent;
    bool we_finish = false;
    for (int a = 0; a < dg::kNumAdventurers; ++a) {
      if (a == move.adventurer || a == move.second) continue;
      if ((*team)[a] == dg::AdventurerState::kReady && dg::kAdventurerStrength[a] >= gap) {
        we_finish = true;
      }
    }
    bool they_finish = false;
    for (Seat s = 0; s < static_cast<int>(v.players.size()); ++s) {
      if (s == me) continue;
      for (int a = 0; a < dg::kNumAdventurers; ++a) {
        if (v.players[s].adventurers[a] == dg::AdventurerState::kReady &&
            dg::kAdventurerStrength[a] >= gap) {
          they_finish = true;
        }
      }
    }
    const double fraction = static_cast<double>(mine) / (before + sent);
    const double value =
        treasure * 0.5 * fraction * (we_finish ? 1.0 : 0.6) * (they_finish ? 0.7 : 1.0);
    return value - 0.45 * sent - card_cost;
  }

  // The best attack from a table and a team.
  static double BestAttack(const dg::DragonsGoldView& v,
                           const std::array<dg::FaceUpDragon, dg::kFaceUpDragons>& dragons,
                           const std::array<dg::AdventurerState, dg::kNumAdventurers>& team,
                           const Valuer& valuer) {
    double best = -1e9;
    for (int slot = 0; slot < dg::kFaceUpDragons; ++slot) {
      if (dragons[slot].card < 0) continue;
      for (int a = 0; a < dg::kNumAdventurers; ++a) {
        if (team[a] != dg::AdventurerState::kReady) continue;
        Move m{.kind = Kind::kAttack, .slot = slot, .adventurer = a};
        best = std::max(best, AttackValue(v, dragons, valuer, v.observer, m, &team));
      }
    }
    return best;
  }

  static double ObjectValue(const dg::DragonsGoldView& v, const Valuer& valuer, const Move& move) {
    const Seat me = v.observer;
    const auto& team = v.players[me].adventurers;
    const double now = BestAttack(v, v.dragons, team, valuer);
    // Holding a card keeps its option open: an object must earn more.
    constexpr double kKeep = 2.0;
    switch (move.object) {
      case dg::kTreasureMap:
        return 1e6;  // a free token: always worth playing first
      case dg::kInvisibleHand:
        return 1e6 - 1 + v.players[move.a].token_count * 1e-3;
      case dg::kRecall: {
        auto ready = team;
        int resting = 0;
        for (int a = 0; a < dg::kNumAdventurers; ++a) {
          if (ready[a] == dg::AdventurerState::kResting) {
            ready[a] = dg::AdventurerState::kReady;
            resting += dg::kAdventurerStrength[a];
          }
        }
        return BestAttack(v, v.dragons, ready, valuer) + 0.5 * resting - now - kKeep;
      }
      case dg::kRetreat: {
        auto dragons = v.dragons;
        for (dg::FaceUpDragon& d : dragons) std::erase(d.attackers, dg::Attacker{me, move.a});
        auto ready = team;
        ready[move.a] = dg::AdventurerState::kReady;
        return BestAttack(v, dragons, ready, valuer) - now - 2 * kKeep;
      }
      case dg::kDragonSwap: {
        auto dragons = v.dragons;
        std::swap(dragons[move.a].card, dragons[move.b].card);
        std::swap(dragons[move.a].weakening, dragons[move.b].weakening);
        std::swap(dragons[move.a].tokens, dragons[move.b].tokens);
        return BestAttack(v, dragons, team, valuer) - now - kKeep;
      }
      case dg::kSleepingPotion: {
        auto dragons = v.dragons;
        ++dragons[move.a].weakening;
        return BestAttack(v, dragons, team, valuer) - now - kKeep;
      }
      case dg::kSilverTongue: {
        // Worth it when the talk is about to run out.
        const dg::Negotiation& n = v.negotiation;
        return n.proposals_made + 1 >= n.proposals_allowed ? 1.0 : -1.0;
      }
      default:
        return -1e9;
    }
  }

  // Listed proposals, weighed as our own builder weighs them.
  double ProposalValue(const dg::DragonsGoldView& v, const Valuer& valuer, const Move& move) const {
    const dg::Negotiation& n = v.negotiation;
    const int k = static_cast<int>(n.contributors.size());
    const int me = Index(n, v.observer);
    if (me < 0) return 0;
    const std::vector<TokenCounts> shares = dg::Shares(move, n.tokens, k);
    return valuer.Gain(shares[me]);
  }

  // How much better accepting the proposal under vote is than rejecting it.
  static double AcceptMargin(const dg::DragonsGoldView& v, const Valuer& valuer) {
    const dg::Negotiation& n = v.negotiation;
    const int me = Index(n, v.observer);
    if (me < 0 || n.proposal.size() != n.contributors.size()) return -1;
    const int k = static_cast<int>(n.contributors.size());
    const double mine = valuer.Gain(n.proposal[me]);
    const double fair = valuer.Gain(n.tokens) / k;
    const bool last = n.proposals_made >= n.proposals_allowed;
    if (last) return mine > 0 ? 1 : mine;  // rejecting now loses it all
    // Ask for less as the proposals run out.
    const double ask = 0.8 - 0.4 * n.proposals_made / std::max(1, n.proposals_allowed);
    return mine - ask * fair;
  }

  static int Index(const dg::Negotiation& n, Seat seat) {
    for (std::size_t i = 0; i < n.contributors.size(); ++i) {
      if (n.contributors[i] == seat) return static_cast<int>(i);
    }
    return -1;
  }

  // Our own division, when the view proves we are the proposer (then any
  // division of the treasure among the contributors is legal); nullopt to
  // choose among the listed actions instead.
  std::optional<Action> Propose(const dg::DragonsGoldView& v, const Valuer& valuer,
                                std::span<const Action> legal) {
    const dg::Negotiation& n = v.negotiation;
    const int k = static_cast<int>(n.contributors.size());
    const int me = Index(n, v.observer);
    if (n.proposer != v.observer || me < 0 || k < 2 || Total(n.tokens) > dg::kMaxTokensOnDragon) {
      return std::nullopt;
    }
    bool listed_proposal = false;
    for (Action action : legal) {
      const std::optional<Move> move = Move::Decode(action);
      if (!move) return std::nullopt;
      if (move->kind == Kind::kPropose) {
        listed_proposal = true;
      } else if (move->kind == Kind::kUseObject && move->object == dg::kSilverTongue) {
        if (ObjectValue(v, valuer, *move) > 0) return action;
      } else {
        return std::nullopt;  // not the proposal decision we know
      }
    }
    if (!listed_proposal) return std::nullopt;
    // Keep a little more than an even share early, an even share at the end.
    const int left = n.proposals_allowed - n.proposals_made;
    const double greed = left <= 1 ? 0.0 : 0.2 * (left - 1) / std::max(1, n.proposals_allowed);
    double generic_total = 0;
    for (int kind = 0; kind < dg::kNumTokenKinds; ++kind) {
      generic_total += n.tokens[kind] * kGenericValue[kind];
    }
    const double target = generic_total * std::min(1.0, 1.0 / k + greed);
    std::vector<TokenCounts> shares(k, TokenCounts{});
    TokenCounts rest = n.tokens;
    // Take what we value most against what it looks worth to others.
    double taken = 0;
    while (true) {
      int pick = -1;
      double best = 0;
      for (int kind = 0; kind < dg::kNumTokenKinds; ++kind) {
        if (rest[kind] == 0) continue;
        TokenCounts with = shares[me];
        const double before = valuer.Gain(with);
        ++with[kind];
        const double ratio = (valuer.Gain(with) - before) / kGenericValue[kind];
        if (ratio > best) {
          best = ratio;
          pick = kind;
        }
      }
      if (pick < 0 || taken + kGenericValue[pick] / 2 > target) break;
      ++shares[me][pick];
      --rest[pick];
      taken += kGenericValue[pick];
    }
    // The rest goes round the others, most valuable first, to whoever has least.
    std::vector<double> others(k, 0.0);
    while (true) {
      int best_kind = -1;
      for (int kk = 0; kk < dg::kNumTokenKinds; ++kk) {
        if (rest[kk] > 0 && (best_kind < 0 || kGenericValue[kk] > kGenericValue[best_kind])) {
          best_kind = kk;
        }
      }
      if (best_kind < 0) break;
      int to = -1;
      for (int i = 0; i < k; ++i) {
        if (i != me && (to < 0 || others[i] < others[to])) to = i;
      }
      ++shares[to][best_kind];
      --rest[best_kind];
      others[to] += kGenericValue[best_kind];
    }
    return dg::Proposal(shares).Encode();
  }

  // Our own market offer, when the view proves we are the offerer (then any
  // bundle for any bundle is legal); nullopt to choose among the listed
  // actions instead. Among the swaps of one or two tokens each way, it asks
  // only for tokens the record shows the other player holds, and offers the
  // swap that gains us most of those we reckon the other gains from.
  static std::optional<Action> Offer(const dg::DragonsGoldView& v, const Valuer& valuer,
                                     std::span<const Action> legal) {
    const Seat me = v.observer;
    if (v.market_offerer != me) return std::nullopt;
    for (Action action : legal) {
      const std::optional<Move> move = Move::Decode(action);
      if (!move || (move->kind != Kind::kMarketPass && move->kind != Kind::kMarketOffer)) {
        return std::nullopt;  // not the offer decision we know
      }
    }
    const std::vector<TokenCounts> gives = Bundles(valuer.own());
    double best = kOfferMargin;
    std::optional<Move> choice;
    for (Seat to = 0; to < static_cast<int>(v.players.size()); ++to) {
      if (to == me) continue;
      const TokenCounts theirs = dg::KnownTokens(v, to);
      const Valuer their_valuer(v, to, &theirs);
      for (const TokenCounts& get : Bundles(theirs)) {
        for (const TokenCounts& give : gives) {
          bool overlap = false;
          for (int k = 0; k < dg::kNumTokenKinds; ++k) overlap = overlap || (give[k] && get[k]);
          if (overlap) continue;
          const double mine = valuer.Gain(Difference(get, give));
          if (mine <= best) continue;
          if (their_valuer.Gain(Difference(give, get)) < kAcceptMargin + kOfferMargin) continue;
          best = mine;
          choice = Move{.kind = Kind::kMarketOffer, .target = to, .give = give, .get = get};
        }
      }
    }
    if (!choice) return Move{.kind = Kind::kMarketPass}.Encode();
    return choice->Encode();
  }

  // Every bundle of one or two tokens from `tokens`.
  static std::vector<TokenCounts> Bundles(const TokenCounts& tokens) {
    std::vector<TokenCounts> bundles;
    for (int a = 0; a < dg::kNumTokenKinds; ++a) {
      if (tokens[a] == 0) continue;
      TokenCounts one{};
      one[a] = 1;
      bundles.push_back(one);
      for (int b = a; b < dg::kNumTokenKinds; ++b) {
        if (tokens[b] < (a == b ? 2 : 1)) continue;
        TokenCounts two = one;
        ++two[b];
        bundles.push_back(two);
      }
    }
    return bundles;
  }

  static TokenCounts Difference(const TokenCounts& in, const TokenCounts& out) {
    TokenCounts change{};
    for (int k = 0; k < dg::kNumTokenKinds; ++k) change[k] = in[k] - out[k];
    return change;
  }

  // A swap must raise the replier's estimated score by this much to be
  // accepted, and the offerer's (and, as the offerer reckons it, the
  // replier's) by kOfferMargin more to be offered.
  static constexpr double kAcceptMargin = 0.3;
  static constexpr double kOfferMargin = 0.5;

  engine::Rng rng_;
};

}  // namespace

std::unique_ptr<Bot> MakeHeuristicBot(std::uint64_t seed) {
  return std::make_unique<HeuristicBot>(seed);
}

}  // namespace hoard::engine::dragons_gold
