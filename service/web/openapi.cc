// The OpenAPI document of the web API (docs/web.md). Each response is a
// hoard.v1 message in protobuf's JSON mapping as the web face prints it
// (service/web/web_server.cc: proto field names, fields with default values
// printed); its schema is written here from the message's descriptor, so it
// follows proto/hoard/v1/ as the protocol changes.

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/descriptor.h"
#include "hoard/v1/arena.pb.h"
#include "hoard/v1/tournament.pb.h"
#include "service/web/web_server.h"

namespace hoard::service {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::FieldDescriptor;

// The paths, and the responses every route shares; each route's 200 is the
// response named after its message, written below.
constexpr char kPaths[] = R"json({
  "openapi": "3.0.3",
  "info": {
    "title": "Hoard web API",
    "version": "1",
    "description": "The public reads of Hoard's gRPC API over HTTP, and a seat played by its holder (the two /api/v1/play routes, the only ones that change state). Each response body is the hoard.v1 message named in its description, in protobuf's JSON mapping, described under components/schemas: proto field names; every field printed, a default value too, but a message field, a oneof's field or an optional field only when set; 64-bit integers as strings; enums by name. Errors are {\"code\": a gRPC status name, \"message\": why}. An Authorization header (Bearer TOKEN) is passed on to the RPC: what a caller may read is what it may read over gRPC (docs/security.md)."
  },
  "paths": {
    "/api/v1/games": {"get": {"summary": "The games and their options (Arena.ListGames)", "operationId": "ListGames",
      "responses": {"200": {"$ref": "#/components/responses/hoard.v1.ListGamesResponse"}, "default": {"$ref": "#/components/responses/Error"}}}},
    "/api/v1/bots": {"get": {"summary": "Registered bots, connected or not (Arena.ListBots)", "operationId": "ListBots",
      "responses": {"200": {"$ref": "#/components/responses/hoard.v1.ListBotsResponse"}, "default": {"$ref": "#/components/responses/Error"}}}},
    "/api/v1/matches": {"get": {"summary": "Matches, newest first, a page at a time (Arena.ListMatches)", "operationId": "ListMatches",
      "parameters": [
        {"name": "game", "in": "query", "schema": {"type": "string"}, "description": "only this game"},
        {"name": "status", "in": "query", "schema": {"type": "string", "enum": ["MATCH_STATUS_RUNNING", "MATCH_STATUS_FINISHED", "MATCH_STATUS_ABORTED"]}},
        {"name": "bot", "in": "query", "schema": {"type": "string"}, "description": "only matches this bot plays"},
        {"name": "page_size", "in": "query", "schema": {"type": "integer"}},
        {"name": "page_token", "in": "query", "schema": {"type": "string"}, "description": "a page's next_page_token (the older matches after it) or newer_page_token (the newer ones before it); none: the newest"}],
      "responses": {"200": {"$ref": "#/components/responses/hoard.v1.ListMatchesResponse"}, "default": {"$ref": "#/components/responses/Error"}}}},
    "/api/v1/matches/{match_id}": {"get": {"summary": "A match, with its record once it is finished and unsealed (Arena.GetMatch)", "operationId": "GetMatch",
      "parameters": [{"$ref": "#/components/parameters/MatchId"}],
      "responses": {"200": {"$ref": "#/components/responses/hoard.v1.GetMatchResponse"}, "default": {"$ref": "#/components/responses/Error"}}}},
    "/api/v1/matches/{match_id}/replay": {"get": {"summary": "A finished match step by step as one seat (or a spectator) saw it, replayed from its record (Arena.ReplayMatch)", "operationId": "ReplayMatch",
      "parameters": [{"$ref": "#/components/parameters/MatchId"},
        {"name": "seat", "in": "query", "schema": {"type": "integer", "minimum": 0}, "description": "whose view; unset: a spectator's"},
        {"name": "changes_only", "in": "query", "schema": {"type": "boolean"}, "description": "true: each step's change from the one before, in place of its whole view"}],
      "responses": {"200": {"$ref": "#/components/responses/hoard.v1.ReplayMatchResponse"}, "default": {"$ref": "#/components/responses/Error"}}}},
    "/api/v1/matches/{match_id}/events": {"get": {"summary": "A match as a spectator sees it, live (Arena.WatchMatch) as Server-Sent Events: each hoard.v1.MatchEvent an event named match, then end (or error)", "operationId": "WatchMatch",
      "parameters": [{"$ref": "#/components/parameters/MatchId"},
        {"name": "from_start", "in": "query", "schema": {"type": "boolean"}, "description": "true: after a running match's snapshot, every action told so far from step 1, then the live events"}],
      "responses": {"200": {"$ref": "#/components/responses/Events"}, "default": {"$ref": "#/components/responses/Error"}}}},
    "/api/v1/tournaments": {"get": {"summary": "Tournaments (Tournaments.ListTournaments)", "operationId": "ListTournaments",
      "responses": {"200": {"$ref": "#/components/responses/hoard.v1.ListTournamentsResponse"}, "default": {"$ref": "#/components/responses/Error"}}}},
    "/api/v1/tournaments/{id}": {"get": {"summary": "A tournament and its progress (Tournaments.GetTournament)", "operationId": "GetTournament",
      "parameters": [{"$ref": "#/components/parameters/TournamentId"}],
      "responses": {"200": {"$ref": "#/components/responses/hoard.v1.Tournament"}, "default": {"$ref": "#/components/responses/Error"}}}},
    "/api/v1/tournaments/{id}/events": {"get": {"summary": "A tournament's progress, live (Tournaments.WatchTournament) as Server-Sent Events: each hoard.v1.Tournament an event named tournament, then end (or error)", "operationId": "WatchTournament",
      "parameters": [{"$ref": "#/components/parameters/TournamentId"}],
      "responses": {"200": {"$ref": "#/components/responses/Events"}, "default": {"$ref": "#/components/responses/Error"}}}},
    "/api/v1/leaderboard": {"get": {"summary": "A game's leaderboard, or a tournament's (Tournaments.GetLeaderboard)", "operationId": "GetLeaderboard",
      "parameters": [
        {"name": "game", "in": "query", "required": true, "schema": {"type": "string"}},
        {"name": "tournament_id", "in": "query", "schema": {"type": "integer"}},
        {"name": "system", "in": "query", "schema": {"type": "string", "enum": ["RATING_SYSTEM_ML", "RATING_SYSTEM_ELO", "RATING_SYSTEM_OPENSKILL"]}}],
      "responses": {"200": {"$ref": "#/components/responses/hoard.v1.Leaderboard"}, "default": {"$ref": "#/components/responses/Error"}}}},
    "/api/v1/head-to-head": {"get": {"summary": "Every pair of bots: meetings and who finished ahead (Tournaments.GetHeadToHead)", "operationId": "GetHeadToHead",
      "parameters": [
        {"name": "game", "in": "query", "required": true, "schema": {"type": "string"}},
        {"name": "tournament_id", "in": "query", "schema": {"type": "integer"}}],
      "responses": {"200": {"$ref": "#/components/responses/hoard.v1.HeadToHeadTable"}, "default": {"$ref": "#/components/responses/Error"}}}},
    "/api/v1/results": {"get": {"summary": "Finished matches' results, a page at a time (Tournaments.ListResults)", "operationId": "ListResults",
      "parameters": [
        {"name": "game", "in": "query", "schema": {"type": "string"}},
        {"name": "tournament_id", "in": "query", "schema": {"type": "integer"}},
        {"name": "bot", "in": "query", "schema": {"type": "string"}},
        {"name": "page_size", "in": "query", "schema": {"type": "integer"}},
        {"name": "page_token", "in": "query", "schema": {"type": "string"}}],
      "responses": {"200": {"$ref": "#/components/responses/hoard.v1.ListResultsResponse"}, "default": {"$ref": "#/components/responses/Error"}}}},
    "/api/v1/play": {"post": {"summary": "Plays a seat (Arena.Play): the body is the hello of its holder, an open seat's join (match_id, seat_token) or a bot account's register (name, key), in the body only, never the address. Answered with the seat's Play stream as Server-Sent Events: session (PlaySession: the id the answers name), then each hoard.v1.ServerMessage as play (decision requests with the seat's view, legal actions in words and clock; the play as it happens; the end), then end (or error). A refused hello is an error: 401 an unknown token or a wrong key, 403 another match's token, 429 a name or address backing off after wrong keys, 503 no room for another stream (per address and in total)", "operationId": "Play",
      "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/hoard.v1.Hello"}}}},
      "responses": {"200": {"$ref": "#/components/responses/PlayEvents"}, "default": {"$ref": "#/components/responses/Error"}}}},
    "/api/v1/play/answer": {"post": {"summary": "Answers a decision of an open play session (Arena.Play's Answer), from the address that opened it: the arena's result once it has judged the answer (200 accepted), or its refusal as an error (400 an illegal action or a request no longer open, with the reason; 401 no such session; 403 another address's session; 429 too many answers waiting)", "operationId": "PlayAnswer",
      "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/PlayAnswer"}}}},
      "responses": {"200": {"$ref": "#/components/responses/hoard.v1.AnswerResult"}, "default": {"$ref": "#/components/responses/Error"}}}},
    "/openapi.json": {"get": {"summary": "This document", "operationId": "OpenApi",
      "responses": {"200": {"description": "OpenAPI 3", "content": {"application/json": {"schema": {"type": "object"}}}}}}},
    "/metrics": {"get": {"summary": "The server's metrics in the Prometheus text format (docs/web.md)", "operationId": "Metrics",
      "responses": {"200": {"description": "text/plain; version=0.0.4", "content": {"text/plain": {"schema": {"type": "string"}}}}}}}
  },
  "components": {
    "parameters": {
      "MatchId": {"name": "match_id", "in": "path", "required": true, "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"}},
      "TournamentId": {"name": "id", "in": "path", "required": true, "schema": {"type": "integer", "minimum": 1}}
    },
    "responses": {)json";

// The shared responses; the document closes after the schemas.
constexpr char kSharedResponses[] = R"json(
      "Events": {"description": "Server-Sent Events; each data line is one message in protobuf's JSON mapping (the schemas hoard.v1.MatchEvent and hoard.v1.Tournament)",
        "content": {"text/event-stream": {"schema": {"type": "string"}}}},
      "PlayEvents": {"description": "Server-Sent Events: session (the schema PlaySession), then play events (hoard.v1.ServerMessage), then end or error (Error's object)",
        "content": {"text/event-stream": {"schema": {"type": "string"}}}},
      "Error": {"description": "The RPC's error, with the HTTP status of its code (INVALID_ARGUMENT 400, UNAUTHENTICATED 401, PERMISSION_DENIED 403, NOT_FOUND 404, RESOURCE_EXHAUSTED 429, UNAVAILABLE 503, ...); a method a route does not take is 405 (every route takes GET and HEAD but the play routes, which take POST only), a POST body not of type application/json 415",
        "content": {"application/json": {"schema": {"type": "object", "required": ["code", "message"],
          "properties": {"code": {"type": "string"}, "message": {"type": "string"}}}}}}
)json";

// The messages the routes answer with (web_server.cc), and those the event
// streams carry in their data lines.
const std::vector<const Descriptor*>& ResponseMessages() {
  static const auto* messages = new std::vector<const Descriptor*>{
      hoard::v1::ListGamesResponse::descriptor(),
      hoard::v1::ListBotsResponse::descriptor(),
      hoard::v1::ListMatchesResponse::descriptor(),
      hoard::v1::GetMatchResponse::descriptor(),
      hoard::v1::ReplayMatchResponse::descriptor(),
      hoard::v1::ListTournamentsResponse::descriptor(),
      hoard::v1::Tournament::descriptor(),
      hoard::v1::Leaderboard::descriptor(),
      hoard::v1::HeadToHeadTable::descriptor(),
      hoard::v1::ListResultsResponse::descriptor(),
      hoard::v1::AnswerResult::descriptor(),
  };
  return *messages;
}

const std::vector<const Descriptor*>& EventMessages() {
  static const auto* messages = new std::vector<const Descriptor*>{
      hoard::v1::MatchEvent::descriptor(), hoard::v1::Tournament::descriptor(),
      hoard::v1::ServerMessage::descriptor()};
  return *messages;
}

// The bodies the play routes take: a hello, and an answer in a session.
constexpr char kPlaySchemas[] = R"json(,
      "PlayAnswer": {"type": "object", "description": "An answer to a play session's decision", "required": ["session", "answer"],
        "properties": {"session": {"type": "string", "description": "the id of the session's first event"}, "answer": {"$ref": "#/components/schemas/hoard.v1.Answer"}}},
      "PlaySession": {"type": "object", "description": "The first event of a play stream", "required": ["session"],
        "properties": {"session": {"type": "string", "pattern": "^[0-9a-f]{32}$", "description": "128 random bits: whoever holds it may answer for the seat, from the same address"}}})json";

std::string Quote(const std::string& name) { return absl::StrCat("\"", name, "\""); }

std::string Ref(const std::string& full_name) {
  return absl::StrCat("{\"$ref\": \"#/components/schemas/", full_name, "\"}");
}

// Schemas of messages and enums in protobuf's JSON mapping, each message and
// enum once, in the order first reached (so the same on every run). Every
// name is a .proto identifier, which JSON takes as it is between quotes.
// Of the well-known types, whose JSON is other than an object of their
// fields, the protocol uses only google.protobuf.Value (a replay step's
// change): any JSON value.
class SchemaWriter {
 public:
  void AddMessage(const Descriptor& descriptor) {
    if (!seen_.insert(descriptor.full_name()).second) return;
    std::vector<std::string> properties;
    std::vector<std::string> required;
    for (int i = 0; i < descriptor.field_count(); ++i) {
      const FieldDescriptor& field = *descriptor.field(i);
      properties.push_back(absl::StrCat(Quote(field.name()), ": ", FieldSchema(field)));
      // Printed even when unset: what has no presence (a repeated field, a
      // map, a plain scalar or enum); a message field, a oneof's field and
      // an optional field are left out until set.
      if (!field.has_presence()) required.push_back(Quote(field.name()));
    }
    std::string schema =
        absl::StrCat("{\"type\": \"object\", \"description\": ", Quote(descriptor.full_name()));
    if (!required.empty()) {
      absl::StrAppend(&schema, ", \"required\": [", absl::StrJoin(required, ", "), "]");
    }
    absl::StrAppend(&schema, ",\n        \"properties\": {", absl::StrJoin(properties, ", "), "}}");
    schemas_.push_back(absl::StrCat("      ", Quote(descriptor.full_name()), ": ", schema));
  }

  std::string Schemas() const { return absl::StrJoin(schemas_, ",\n"); }

 private:
  void AddEnum(const EnumDescriptor& descriptor) {
    if (!seen_.insert(descriptor.full_name()).second) return;
    std::vector<std::string> values;
    for (int i = 0; i < descriptor.value_count(); ++i) {
      values.push_back(Quote(descriptor.value(i)->name()));
    }
    schemas_.push_back(absl::StrCat("      ", Quote(descriptor.full_name()),
                                    ": {\"type\": \"string\", \"enum\": [",
                                    absl::StrJoin(values, ", "), "]}"));
  }

  std::string FieldSchema(const FieldDescriptor& field) {
    if (field.is_map()) {
      return absl::StrCat("{\"type\": \"object\", \"additionalProperties\": ",
                          ValueSchema(*field.message_type()->map_value()), "}");
    }
    if (field.is_repeated()) {
      return absl::StrCat("{\"type\": \"array\", \"items\": ", ValueSchema(field), "}");
    }
    return ValueSchema(field);
  }

  // One value of the field, as protobuf's JSON mapping prints it.
  std::string ValueSchema(const FieldDescriptor& field) {
    switch (field.cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        return R"({"type": "integer", "format": "int32"})";
      case FieldDescriptor::CPPTYPE_UINT32:
        return R"({"type": "integer", "minimum": 0, "maximum": 4294967295})";
      case FieldDescriptor::CPPTYPE_INT64:
        return R"({"type": "string", "pattern": "^-?[0-9]+$", "description": "int64 as a decimal string"})";
      case FieldDescriptor::CPPTYPE_UINT64:
        return R"({"type": "string", "pattern": "^[0-9]+$", "description": "uint64 as a decimal string"})";
      case FieldDescriptor::CPPTYPE_DOUBLE:
      case FieldDescriptor::CPPTYPE_FLOAT:
        // An unbounded rating end is Infinity, which JSON has no number for.
        return R"({"oneOf": [{"type": "number"}, {"type": "string", "enum": ["Infinity", "-Infinity", "NaN"]}]})";
      case FieldDescriptor::CPPTYPE_BOOL:
        return R"({"type": "boolean"})";
      case FieldDescriptor::CPPTYPE_STRING:
        return field.type() == FieldDescriptor::TYPE_BYTES
                   ? R"({"type": "string", "format": "byte"})"
                   : R"({"type": "string"})";
      case FieldDescriptor::CPPTYPE_ENUM:
        AddEnum(*field.enum_type());
        return Ref(field.enum_type()->full_name());
      case FieldDescriptor::CPPTYPE_MESSAGE:
        if (field.message_type()->full_name() == "google.protobuf.Value") {
          return R"({"description": "any JSON value"})";
        }
        AddMessage(*field.message_type());
        return Ref(field.message_type()->full_name());
    }
    return "{}";
  }

  absl::flat_hash_set<std::string> seen_;
  std::vector<std::string> schemas_;
};

std::string Document() {
  SchemaWriter schemas;
  std::vector<std::string> responses;
  for (const Descriptor* message : ResponseMessages()) {
    responses.push_back(absl::StrCat(
        "      ", Quote(message->full_name()), ": {\"description\": \"", message->full_name(),
        " in protobuf's JSON mapping\",\n        \"content\": {\"application/json\": {\"schema\": ",
        Ref(message->full_name()), "}}}"));
    schemas.AddMessage(*message);
  }
  for (const Descriptor* message : EventMessages()) schemas.AddMessage(*message);
  schemas.AddMessage(*hoard::v1::Hello::descriptor());
  schemas.AddMessage(*hoard::v1::Answer::descriptor());
  return absl::StrCat(kPaths, absl::StrJoin(responses, ",\n"), ",", kSharedResponses,
                      "    },\n    \"schemas\": {\n", schemas.Schemas(), kPlaySchemas,
                      "\n    }\n  }\n}\n");
}

}  // namespace

const std::string& OpenApiDocument() {
  static const std::string* document = new std::string(Document());
  return *document;
}

}  // namespace hoard::service
