#ifndef HOARD_SERVICE_WEB_VIEW_SCHEMA_H_
#define HOARD_SERVICE_WEB_VIEW_SCHEMA_H_

// The shape of every game's view, read from the protocol's descriptors, for
// the web app to draw a table of any game (docs/web.md): the branches of
// hoard.v1.View's oneof `game`, and every message and enum they reach.
//
//   {"views": {"village": "hoard.v1.VillageView", ...},
//    "messages": {"hoard.v1.VillageView": [
//        {"name": "favor", "type": "enum", "of": "hoard.v1.VillageCard",
//         "repeated": true}, ...], ...},
//    "enums": {"hoard.v1.VillageCard": {"prefix": "VILLAGE_CARD_",
//        "values": ["VILLAGE_CARD_UNSPECIFIED", "VILLAGE_CARD_SWORD", ...]}, ...}}
//
// Fields are in the .proto's order; "type" is the field's type as the
// .proto spells it ("int32", "bool", "string", "double", ...), or "enum" or
// "message" with "of" naming it; "repeated" is there only when true. An
// enum's "prefix" is what its value names share ("VILLAGE_CARD_"), which
// the app leaves out.

#include <string>

namespace hoard::service {

// The schema as JSON; the same on every call.
const std::string& ViewSchemaJson();

}  // namespace hoard::service

#endif  // HOARD_SERVICE_WEB_VIEW_SCHEMA_H_
