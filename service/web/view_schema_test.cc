#include "service/web/view_schema.h"

#include <string>
#include <vector>

#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "hoard/v1/arena.pb.h"
#include "hoard/v1/village.pb.h"
#include "service/web/assets.h"

namespace hoard::service {
namespace {

using google::protobuf::Struct;
using google::protobuf::Value;

Struct Schema() {
  Struct schema;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(ViewSchemaJson(), &schema).ok());
  return schema;
}

const Value& At(const Struct& object, const std::string& key) {
  static const Value* none = new Value();
  auto found = object.fields().find(key);
  return found == object.fields().end() ? *none : found->second;
}

TEST(ViewSchemaTest, NamesTheViewMessageOfEveryGameOfTheWire) {
  const Struct views = At(Schema(), "views").struct_value();
  const auto* games = hoard::v1::View::descriptor()->FindOneofByName("game");
  ASSERT_EQ(views.fields_size(), games->field_count());
  for (int i = 0; i < games->field_count(); ++i) {
    EXPECT_EQ(At(views, games->field(i)->name()).string_value(),
              games->field(i)->message_type()->full_name());
  }
}

TEST(ViewSchemaTest, GivesAViewsFieldsInTheProtosOrderWithTheirTypes) {
  const Struct schema = Schema();
  const auto& fields =
      At(At(schema, "messages").struct_value(), "hoard.v1.VillageView").list_value().values();
  const auto* descriptor = hoard::v1::VillageView::descriptor();
  ASSERT_EQ(fields.size(), descriptor->field_count());
  std::vector<std::string> names;
  for (const Value& field : fields)
    names.push_back(At(field.struct_value(), "name").string_value());
  EXPECT_EQ(names.front(), "observer");
  EXPECT_EQ(names.back(), "rules");
  // favor: repeated VillageCard; market: repeated VillageCards; over: bool.
  const Struct& favor = fields[1].struct_value();
  EXPECT_EQ(At(favor, "type").string_value(), "enum");
  EXPECT_EQ(At(favor, "of").string_value(), "hoard.v1.VillageCard");
  EXPECT_TRUE(At(favor, "repeated").bool_value());
  EXPECT_EQ(At(fields[3].struct_value(), "of").string_value(), "hoard.v1.VillageCards");
  EXPECT_EQ(At(fields[8].struct_value(), "type").string_value(), "bool");
  EXPECT_FALSE(At(fields[8].struct_value(), "repeated").bool_value());
  // Every message a view reaches is there too.
  EXPECT_EQ(At(At(schema, "messages").struct_value(), "hoard.v1.VillagePlayer")
                .list_value()
                .values_size(),
            hoard::v1::VillagePlayer::descriptor()->field_count());
}

TEST(ViewSchemaTest, GivesAnEnumsPrefixAndValues) {
  const Struct schema = Schema();
  const Struct& card =
      At(At(schema, "enums").struct_value(), "hoard.v1.VillageCard").struct_value();
  EXPECT_EQ(At(card, "prefix").string_value(), "VILLAGE_CARD_");
  ASSERT_EQ(At(card, "values").list_value().values_size(), 8);
  EXPECT_EQ(At(card, "values").list_value().values(1).string_value(), "VILLAGE_CARD_SWORD");
}

TEST(ViewSchemaTest, IsTheSameOnEveryRunAndIsInTheServedApp) {
  EXPECT_EQ(&ViewSchemaJson(), &ViewSchemaJson());
  std::string app;
  for (const WebAsset& asset : WebAssets()) {
    if (std::string(asset.path) == "/app.js") app = asset.body;
  }
  EXPECT_NE(app.find("const VIEW_SCHEMA = " + ViewSchemaJson() + ";"), std::string::npos);
  EXPECT_EQ(app.find("HOARD_VIEW_SCHEMA"), std::string::npos);
}

}  // namespace
}  // namespace hoard::service
