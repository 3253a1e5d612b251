// Frost Dragon's Treasure on the wire (proto/hoard/v1/frost_dragon.proto).

#include "engine/games/frost_dragon/frost_dragon_proto.h"

#include <bit>

#include "absl/strings/str_cat.h"
#include "engine/codec.h"
#include "engine/status_macros.h"
#include "hoard/v1/arena.pb.h"

namespace hoard::engine::frost_dragon {
namespace {

// The wire's enums are the engine's values plus one (UNSPECIFIED is 0).
hoard::v1::FrostDragonKingdom KingdomToProto(int kingdom) {
  return static_cast<hoard::v1::FrostDragonKingdom>(kingdom + 1);
}

hoard::v1::FrostDragonPhase PhaseToProto(Phase phase) {
  return static_cast<hoard::v1::FrostDragonPhase>(static_cast<int>(phase) + 1);
}

hoard::v1::FrostDragonEndReason EndReasonToProto(EndReason end) {
  return static_cast<hoard::v1::FrostDragonEndReason>(static_cast<int>(end));
}

hoard::v1::FrostDragonActionSpaceKind ActionSpaceToProto(ActionSpaceKind kind) {
  return static_cast<hoard::v1::FrostDragonActionSpaceKind>(static_cast<int>(kind) + 1);
}

void CardToProto(int card, hoard::v1::FrostDragonCard* out) {
  out->set_id(card);
  switch (KindOf(card)) {
    case CardKind::kKingdom:
      out->set_kingdom(KingdomToProto(KingdomOf(card)));
      out->set_rank(RankOf(card));
      break;
    case CardKind::kAlly:
      out->set_joker(static_cast<hoard::v1::FrostDragonJoker>(
          hoard::v1::FROST_DRAGON_JOKER_LEPRECHAUN + (card - kFirstAlly)));
      break;
    case CardKind::kTreasure:
      out->set_joker(hoard::v1::FROST_DRAGON_JOKER_TREASURE);
      break;
    case CardKind::kDragon:
      out->set_joker(hoard::v1::FROST_DRAGON_JOKER_DRAGON);
      break;
  }
}

void CardsToProto(CardSet cards,
                  google::protobuf::RepeatedPtrField<hoard::v1::FrostDragonCard>* out) {
  for (; cards != 0; cards &= cards - 1) CardToProto(std::countr_zero(cards), out->Add());
}

void ChallengeToProto(const Challenge& challenge, hoard::v1::FrostDragonChallenge* out) {
  out->set_leader(challenge.leader);
  for (int i = 0; i < challenge.size; ++i) {
    const PlayedCard& played = challenge.cards[i];
    hoard::v1::FrostDragonPlayedCard* card = out->add_cards();
    card->set_seat(played.seat);
    CardToProto(played.card, card->mutable_card());
    if (KindOf(played.card) == CardKind::kAlly) CardToProto(played.as, card->mutable_as());
  }
  if (challenge.lead_kingdom != kNoKingdom) {
    out->set_lead_kingdom(KingdomToProto(challenge.lead_kingdom));
  }
  out->set_winner(challenge.winner);
}

void MapToProto(hoard::v1::FrostDragonMap* out) {
  out->set_finish(kFinishSpace);
  out->set_last_space(kLastSpace);
  for (const ActionSpace& space : kActionSpaces) {
    hoard::v1::FrostDragonActionSpace* action = out->add_action_spaces();
    action->set_kind(ActionSpaceToProto(space.kind));
    action->set_space(space.space);
    action->set_to(space.to);
    action->set_jump_to(space.jump_to);
    action->set_needs_boast(space.needs_boast);
    action->set_jump_next_quest_only(space.jump_next_quest_only);
  }
  out->set_treasure_bonus(kTreasureBonus);
  out->set_threat_limit(kThreatLimit);
  out->set_threat_setback(kThreatSetback);
}

absl::StatusOr<int> KingdomFromProto(hoard::v1::FrostDragonKingdom kingdom,
                                     absl::string_view field) {
  const int k = static_cast<int>(kingdom) - 1;
  if (k < 0 || k >= kNumKingdoms) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, " must name a kingdom (MOUNTAIN, FOREST, RIVER or GLACIER)"));
  }
  return k;
}

class FrostDragonCodec final : public GameCodec {
 public:
  void ViewToProto(const View& view, hoard::v1::View* out) const override {
    ToProto(static_cast<const FrostDragonView&>(view), out->mutable_frost_dragon());
  }

  void ActionToProto(Action action, hoard::v1::Action* out) const override {
    ToProto(action, out->mutable_frost_dragon());
  }

  absl::StatusOr<Action> ActionFromProto(const hoard::v1::Action& action) const override {
    RETURN_IF_ERROR(CheckActionGame(action, "frost_dragon"));
    return FromProto(action.frost_dragon());
  }
};

}  // namespace

void ToProto(const FrostDragonView& view, hoard::v1::FrostDragonView* out) {
  out->set_observer(view.observer);
  hoard::v1::FrostDragonRules* rules = out->mutable_rules();
  rules->set_ally_jokers(view.rules.ally_jokers);
  rules->set_treasure_jokers(view.rules.treasure_jokers);
  rules->set_dragon_jokers(view.rules.dragon_jokers);
  rules->set_max_quests(view.rules.max_quests);
  rules->set_trump_every_quest(view.rules.trump_every_quest);
  rules->set_ally_sets_lead(view.rules.ally_sets_lead);
  rules->set_catapult_until_used(view.rules.catapult_until_used);
  MapToProto(out->mutable_map());
  out->set_quest(view.quest);
  out->set_fate(view.fate);
  if (view.trump != kNoKingdom) out->set_trump(KingdomToProto(view.trump));
  out->set_trump_led(view.trump_led);
  out->set_hand_size(view.hand_size);
  out->set_cards_in_match(view.cards_in_match);
  out->set_out_of_play(view.out_of_play);
  CardsToProto(view.removed, out->mutable_removed());
  CardsToProto(view.played, out->mutable_played());
  out->set_phase(PhaseToProto(view.phase));
  out->set_seat_to_act(view.to_act);
  ChallengeToProto(view.challenge, out->mutable_challenge());
  if (view.last_challenge.size > 0) {
    ChallengeToProto(view.last_challenge, out->mutable_last_challenge());
  }
  for (const Challenge& challenge : view.challenges) {
    ChallengeToProto(challenge, out->add_challenges());
  }
  out->set_final_quest(view.final_quest);
  for (std::size_t s = 0; s < view.players.size(); ++s) {
    const PlayerView& player = view.players[s];
    const Adventurer& a = player.adventurer;
    hoard::v1::FrostDragonPlayer* p = out->add_players();
    p->set_seat(static_cast<int>(s));
    p->set_space(a.space);
    p->set_threat(a.threat);
    if (a.boast >= 0) {
      p->set_boast(a.boast);
      p->set_marker(a.marker);
    }
    p->set_reached_marker(a.reached_marker);
    p->set_won(a.won);
    p->set_treasures(a.treasures);
    if (a.jump_to >= 0) p->set_jump_to(a.jump_to);
    p->set_cards_held(player.hand_size);
    if (player.hand) CardsToProto(*player.hand, p->mutable_hand());
  }
  out->set_end_reason(EndReasonToProto(view.end));
  for (double score : view.scores) out->add_scores(score);
}

void ToProto(Action action, hoard::v1::FrostDragonAction* out) {
  const std::optional<Move> move = Move::Decode(action);
  if (!move) return;
  switch (move->kind) {
    case Move::Kind::kChooseTrump:
      out->mutable_choose_trump()->set_kingdom(KingdomToProto(move->kingdom));
      break;
    case Move::Kind::kBoast:
      out->mutable_boast()->set_challenges(move->boast);
      break;
    case Move::Kind::kPlay:
      out->mutable_play()->set_card(move->card);
      if (KindOf(move->card) == CardKind::kAlly) {
        out->mutable_play()->set_as_kingdom(KingdomToProto(KingdomOf(move->as)));
        out->mutable_play()->set_as_rank(RankOf(move->as));
      }
      break;
  }
}

absl::StatusOr<Action> FromProto(const hoard::v1::FrostDragonAction& action) {
  switch (action.kind_case()) {
    case hoard::v1::FrostDragonAction::kChooseTrump: {
      absl::StatusOr<int> kingdom =
          KingdomFromProto(action.choose_trump().kingdom(), "choose_trump.kingdom");
      if (!kingdom.ok()) return kingdom.status();
      return Move::ChooseTrump(*kingdom).Encode();
    }
    case hoard::v1::FrostDragonAction::kBoast: {
      const int challenges = action.boast().challenges();
      if (challenges < 0 || challenges > kMaxHandSize) {
        return absl::InvalidArgumentError(absl::StrCat("boast.challenges is ", challenges,
                                                       "; a boast is from 0 to ", kMaxHandSize));
      }
      return Move::Boast(challenges).Encode();
    }
    case hoard::v1::FrostDragonAction::kPlay: {
      const hoard::v1::FrostDragonPlay& play = action.play();
      if (play.card() < 0 || play.card() >= kNumCardIds) {
        return absl::InvalidArgumentError(
            absl::StrCat("play.card is ", play.card(), "; card ids are 0 to 63"));
      }
      const bool ally = KindOf(play.card()) == CardKind::kAlly;
      if (!ally) {
        if (play.as_kingdom() != hoard::v1::FROST_DRAGON_KINGDOM_UNSPECIFIED ||
            play.as_rank() != 0) {
          return absl::InvalidArgumentError(
              "play.as_kingdom and play.as_rank are for ally jokers only");
        }
        return Move::Play(play.card()).Encode();
      }
      absl::StatusOr<int> kingdom = KingdomFromProto(play.as_kingdom(), "play.as_kingdom");
      if (!kingdom.ok()) return kingdom.status();
      if (play.as_rank() < kLowestRank || play.as_rank() > kAce) {
        return absl::InvalidArgumentError(absl::StrCat(
            "play.as_rank is ", play.as_rank(), "; an ally joker is played as rank 2 to 14"));
      }
      return Move::Play(play.card(), KingdomCard(*kingdom, play.as_rank())).Encode();
    }
    case hoard::v1::FrostDragonAction::KIND_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError(
      "the frost_dragon action is empty: set one of choose_trump, boast or play");
}

std::unique_ptr<GameCodec> MakeCodec() { return std::make_unique<FrostDragonCodec>(); }

}  // namespace hoard::engine::frost_dragon
