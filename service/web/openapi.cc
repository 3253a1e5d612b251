// The OpenAPI document of the web API (docs/web.md). Each response is a
// hoard.v1 message in protobuf's JSON mapping, with proto field names and
// every field printed; the messages are described in proto/hoard/v1/.

#include <string>

#include "service/web/web_server.h"

namespace hoard::service {
namespace {

constexpr char kDocument[] = R"json({
  "openapi": "3.0.3",
  "info": {
    "title": "Hoard web API",
    "version": "1",
    "description": "The public reads of Hoard's gRPC API over HTTP, read-only. Each response body is the hoard.v1 message named in its description, in protobuf's JSON mapping (proto field names, every field printed; 64-bit integers as strings). Errors are {\"code\": a gRPC status name, \"message\": why}. An Authorization header (Bearer TOKEN) is passed on to the RPC: what a caller may read is what it may read over gRPC (docs/security.md)."
  },
  "paths": {
    "/api/v1/games": {"get": {"summary": "The games and their options (Arena.ListGames)", "operationId": "ListGames",
      "responses": {"200": {"$ref": "#/components/responses/Message"}, "default": {"$ref": "#/components/responses/Error"}}}},
    "/api/v1/bots": {"get": {"summary": "Registered bots, connected or not (Arena.ListBots)", "operationId": "ListBots",
      "responses": {"200": {"$ref": "#/components/responses/Message"}, "default": {"$ref": "#/components/responses/Error"}}}},
    "/api/v1/matches": {"get": {"summary": "Matches, newest first, a page at a time (Arena.ListMatches)", "operationId": "ListMatches",
      "parameters": [
        {"name": "game", "in": "query", "schema": {"type": "string"}, "description": "only this game"},
        {"name": "status", "in": "query", "schema": {"type": "string", "enum": ["MATCH_STATUS_RUNNING", "MATCH_STATUS_FINISHED", "MATCH_STATUS_ABORTED"]}},
        {"name": "bot", "in": "query", "schema": {"type": "string"}, "description": "only matches this bot plays"},
        {"name": "page_size", "in": "query", "schema": {"type": "integer"}},
        {"name": "page_token", "in": "query", "schema": {"type": "string"}, "description": "next_page_token of the page before"}],
      "responses": {"200": {"$ref": "#/components/responses/Message"}, "default": {"$ref": "#/components/responses/Error"}}}},
    "/api/v1/matches/{match_id}": {"get": {"summary": "A match, with its record once it is finished and unsealed (Arena.GetMatch)", "operationId": "GetMatch",
      "parameters": [{"$ref": "#/components/parameters/MatchId"}],
      "responses": {"200": {"$ref": "#/components/responses/Message"}, "default": {"$ref": "#/components/responses/Error"}}}},
    "/api/v1/matches/{match_id}/replay": {"get": {"summary": "A finished match step by step as one seat (or a spectator) saw it, replayed from its record (Arena.ReplayMatch)", "operationId": "ReplayMatch",
      "parameters": [{"$ref": "#/components/parameters/MatchId"},
        {"name": "seat", "in": "query", "schema": {"type": "integer", "minimum": 0}, "description": "whose view; unset: a spectator's"}],
      "responses": {"200": {"$ref": "#/components/responses/Message"}, "default": {"$ref": "#/components/responses/Error"}}}},
    "/api/v1/matches/{match_id}/events": {"get": {"summary": "A match as a spectator sees it, live (Arena.WatchMatch) as Server-Sent Events: each hoard.v1.MatchEvent an event named match, then end (or error)", "operationId": "WatchMatch",
      "parameters": [{"$ref": "#/components/parameters/MatchId"}],
      "responses": {"200": {"$ref": "#/components/responses/Events"}, "default": {"$ref": "#/components/responses/Error"}}}},
    "/api/v1/tournaments": {"get": {"summary": "Tournaments (Tournaments.ListTournaments)", "operationId": "ListTournaments",
      "responses": {"200": {"$ref": "#/components/responses/Message"}, "default": {"$ref": "#/components/responses/Error"}}}},
    "/api/v1/tournaments/{id}": {"get": {"summary": "A tournament and its progress (Tournaments.GetTournament)", "operationId": "GetTournament",
      "parameters": [{"$ref": "#/components/parameters/TournamentId"}],
      "responses": {"200": {"$ref": "#/components/responses/Message"}, "default": {"$ref": "#/components/responses/Error"}}}},
    "/api/v1/tournaments/{id}/events": {"get": {"summary": "A tournament's progress, live (Tournaments.WatchTournament) as Server-Sent Events: each hoard.v1.Tournament an event named tournament, then end (or error)", "operationId": "WatchTournament",
      "parameters": [{"$ref": "#/components/parameters/TournamentId"}],
      "responses": {"200": {"$ref": "#/components/responses/Events"}, "default": {"$ref": "#/components/responses/Error"}}}},
    "/api/v1/leaderboard": {"get": {"summary": "A game's leaderboard, or a tournament's (Tournaments.GetLeaderboard)", "operationId": "GetLeaderboard",
      "parameters": [
        {"name": "game", "in": "query", "required": true, "schema": {"type": "string"}},
        {"name": "tournament_id", "in": "query", "schema": {"type": "integer"}},
        {"name": "system", "in": "query", "schema": {"type": "string", "enum": ["RATING_SYSTEM_ML", "RATING_SYSTEM_ELO", "RATING_SYSTEM_OPENSKILL"]}}],
      "responses": {"200": {"$ref": "#/components/responses/Message"}, "default": {"$ref": "#/components/responses/Error"}}}},
    "/api/v1/head-to-head": {"get": {"summary": "Every pair of bots: meetings and who finished ahead (Tournaments.GetHeadToHead)", "operationId": "GetHeadToHead",
      "parameters": [
        {"name": "game", "in": "query", "required": true, "schema": {"type": "string"}},
        {"name": "tournament_id", "in": "query", "schema": {"type": "integer"}}],
      "responses": {"200": {"$ref": "#/components/responses/Message"}, "default": {"$ref": "#/components/responses/Error"}}}},
    "/api/v1/results": {"get": {"summary": "Finished matches' results, a page at a time (Tournaments.ListResults)", "operationId": "ListResults",
      "parameters": [
        {"name": "game", "in": "query", "schema": {"type": "string"}},
        {"name": "tournament_id", "in": "query", "schema": {"type": "integer"}},
        {"name": "bot", "in": "query", "schema": {"type": "string"}},
        {"name": "page_size", "in": "query", "schema": {"type": "integer"}},
        {"name": "page_token", "in": "query", "schema": {"type": "string"}}],
      "responses": {"200": {"$ref": "#/components/responses/Message"}, "default": {"$ref": "#/components/responses/Error"}}}},
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
    "responses": {
      "Message": {"description": "The RPC's response message (see the summary) in protobuf's JSON mapping",
        "content": {"application/json": {"schema": {"type": "object"}}}},
      "Events": {"description": "Server-Sent Events; each data line is one message in protobuf's JSON mapping",
        "content": {"text/event-stream": {"schema": {"type": "string"}}}},
      "Error": {"description": "The RPC's error, with the HTTP status of its code (INVALID_ARGUMENT 400, UNAUTHENTICATED 401, PERMISSION_DENIED 403, NOT_FOUND 404, RESOURCE_EXHAUSTED 429, UNAVAILABLE 503, ...); any method but GET is 405",
        "content": {"application/json": {"schema": {"type": "object", "required": ["code", "message"],
          "properties": {"code": {"type": "string"}, "message": {"type": "string"}}}}}}
    }
  }
}
)json";

}  // namespace

const std::string& OpenApiDocument() {
  static const std::string* document = new std::string(kDocument);
  return *document;
}

}  // namespace hoard::service
