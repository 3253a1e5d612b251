// The wire contract and the registry agree: every game with a branch in the
// View and Action messages (proto/hoard/v1/arena.proto) is registered with
// its codec, and every registered codec has both branches, under the game's
// id. A game added to one and not the other fails here.

#include <set>
#include <string>

#include "engine/registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hoard/v1/arena.pb.h"

namespace hoard {
namespace {

std::set<std::string> Branches(const google::protobuf::Descriptor& message) {
  std::set<std::string> names;
  const google::protobuf::OneofDescriptor* game = message.FindOneofByName("game");
  if (game == nullptr) return names;
  for (int i = 0; i < game->field_count(); ++i) names.insert(game->field(i)->name());
  return names;
}

TEST(WireGamesTest, TheWireContractAndTheRegistryNameTheSameGames) {
  std::set<std::string> with_codec;
  for (const engine::Game* game : engine::AllGames()) {
    if (engine::FindCodec(game->info().id).ok()) with_codec.insert(game->info().id);
  }
  EXPECT_FALSE(with_codec.empty());
  EXPECT_EQ(Branches(*v1::View::descriptor()), with_codec);
  EXPECT_EQ(Branches(*v1::Action::descriptor()), with_codec);
}

}  // namespace
}  // namespace hoard
