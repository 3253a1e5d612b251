// The numbered migrations, SQLite and PostgreSQL side by side.
// PostgreSQL's columns are BIGINT where SQLite's are INTEGER (the store reads
// 64-bit numbers back), BYTEA where SQLite keeps BLOBs, and its matches carry
// stored_order, what SQLite's rowid is: the order they were stored in.

#include "db/migrations.h"

#include <iterator>

namespace hoard::db {
namespace {

constexpr Migration kMigrations[] = {
    // 1: finished matches, their seats and their records.
    {R"sql(
    CREATE TABLE matches (
      id TEXT PRIMARY KEY,
      sequence INTEGER NOT NULL UNIQUE,
      game TEXT NOT NULL,
      ruleset_version TEXT NOT NULL,
      seed INTEGER NOT NULL,
      status TEXT NOT NULL,
      actions INTEGER NOT NULL,
      stored_at_ms INTEGER NOT NULL,
      summary BLOB NOT NULL  -- hoard.v1.Match
    );
    CREATE TABLE seats (
      match_id TEXT NOT NULL REFERENCES matches(id),
      seat INTEGER NOT NULL,
      player TEXT NOT NULL,
      score REAL NOT NULL,
      rank INTEGER NOT NULL,
      timeouts INTEGER NOT NULL,
      illegal_answers INTEGER NOT NULL,
      forfeited INTEGER NOT NULL,
      PRIMARY KEY (match_id, seat)
    );
    CREATE INDEX seats_by_player ON seats(player, match_id);
    CREATE TABLE match_records (
      match_id TEXT PRIMARY KEY REFERENCES matches(id),
      record BLOB NOT NULL  -- hoard.v1.MatchRecord
    );
    )sql",
     R"sql(
    CREATE TABLE matches (
      id TEXT PRIMARY KEY,
      sequence BIGINT NOT NULL UNIQUE,
      game TEXT NOT NULL,
      ruleset_version TEXT NOT NULL,
      seed BIGINT NOT NULL,
      status TEXT NOT NULL,
      actions BIGINT NOT NULL,
      stored_at_ms BIGINT NOT NULL,
      summary BYTEA NOT NULL,  -- hoard.v1.Match
      stored_order BIGSERIAL NOT NULL  -- the order matches were stored in
    );
    CREATE TABLE seats (
      match_id TEXT NOT NULL REFERENCES matches(id),
      seat BIGINT NOT NULL,
      player TEXT NOT NULL,
      score DOUBLE PRECISION NOT NULL,
      rank BIGINT NOT NULL,
      timeouts BIGINT NOT NULL,
      illegal_answers BIGINT NOT NULL,
      forfeited BIGINT NOT NULL,
      PRIMARY KEY (match_id, seat)
    );
    CREATE INDEX seats_by_player ON seats(player, match_id);
    CREATE TABLE match_records (
      match_id TEXT PRIMARY KEY REFERENCES matches(id),
      record BYTEA NOT NULL  -- hoard.v1.MatchRecord
    );
    )sql"},
    // 2: bots, tournaments, matches' place in them and timings, rating
    // snapshots.
    {R"sql(
    CREATE TABLE bots (
      id INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      version TEXT NOT NULL,
      UNIQUE (name, version)
    );
    CREATE TABLE tournaments (
      id INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      game TEXT NOT NULL,
      spec BLOB NOT NULL,  -- hoard.v1.TournamentSpec
      spec_hash TEXT NOT NULL,
      status TEXT NOT NULL,
      error TEXT NOT NULL,
      scheduled INTEGER NOT NULL,
      created_at_ms INTEGER NOT NULL,
      updated_at_ms INTEGER NOT NULL
    );
    CREATE INDEX tournaments_by_spec ON tournaments(spec_hash, id);
    ALTER TABLE matches ADD COLUMN tournament_id INTEGER REFERENCES tournaments(id);
    ALTER TABLE matches ADD COLUMN schedule_index INTEGER;
    ALTER TABLE matches ADD COLUMN block INTEGER;
    ALTER TABLE matches ADD COLUMN started_at_ms INTEGER;
    ALTER TABLE matches ADD COLUMN finished_at_ms INTEGER;
    CREATE UNIQUE INDEX matches_by_slot ON matches(tournament_id, schedule_index)
      WHERE tournament_id IS NOT NULL;
    CREATE INDEX matches_by_game ON matches(game);
    ALTER TABLE seats ADD COLUMN bot_id INTEGER REFERENCES bots(id);
    CREATE INDEX seats_by_bot ON seats(bot_id, match_id);
    CREATE TABLE rating_snapshots (
      game TEXT NOT NULL,
      tournament_id INTEGER NOT NULL,  -- 0: every match of the game
      version INTEGER NOT NULL,        -- the scope's version it covers
      computed_at_ms INTEGER NOT NULL,
      snapshot BLOB NOT NULL,          -- hoard.v1.RatingSnapshot
      PRIMARY KEY (game, tournament_id, version)
    );
    )sql",
     R"sql(
    CREATE TABLE bots (
      id BIGSERIAL PRIMARY KEY,
      name TEXT NOT NULL,
      version TEXT NOT NULL,
      UNIQUE (name, version)
    );
    CREATE TABLE tournaments (
      id BIGSERIAL PRIMARY KEY,
      name TEXT NOT NULL,
      game TEXT NOT NULL,
      spec BYTEA NOT NULL,  -- hoard.v1.TournamentSpec
      spec_hash TEXT NOT NULL,
      status TEXT NOT NULL,
      error TEXT NOT NULL,
      scheduled BIGINT NOT NULL,
      created_at_ms BIGINT NOT NULL,
      updated_at_ms BIGINT NOT NULL
    );
    CREATE INDEX tournaments_by_spec ON tournaments(spec_hash, id);
    ALTER TABLE matches ADD COLUMN tournament_id BIGINT REFERENCES tournaments(id),
      ADD COLUMN schedule_index BIGINT, ADD COLUMN block BIGINT,
      ADD COLUMN started_at_ms BIGINT, ADD COLUMN finished_at_ms BIGINT;
    CREATE UNIQUE INDEX matches_by_slot ON matches(tournament_id, schedule_index)
      WHERE tournament_id IS NOT NULL;
    CREATE INDEX matches_by_game ON matches(game);
    ALTER TABLE seats ADD COLUMN bot_id BIGINT REFERENCES bots(id);
    CREATE INDEX seats_by_bot ON seats(bot_id, match_id);
    CREATE TABLE rating_snapshots (
      game TEXT NOT NULL,
      tournament_id BIGINT NOT NULL,  -- 0: every match of the game
      version BIGINT NOT NULL,        -- the scope's version it covers
      computed_at_ms BIGINT NOT NULL,
      snapshot BYTEA NOT NULL,        -- hoard.v1.RatingSnapshot
      PRIMARY KEY (game, tournament_id, version)
    );
    )sql"},
    // 3: the keys of bots the runner launches; the bots of matches stored
    // before migration 2.
    {R"sql(
    CREATE TABLE launch_keys (
      bot TEXT PRIMARY KEY,  -- name@version
      key TEXT NOT NULL
    );
    -- Matches stored before migration 2: their seats' bots.
    INSERT OR IGNORE INTO bots (name, version)
      SELECT CASE WHEN instr(b, '@') > 0 THEN substr(b, 1, instr(b, '@') - 1) ELSE b END,
             CASE WHEN instr(b, '@') > 0 THEN substr(b, instr(b, '@') + 1) ELSE '' END
      FROM (SELECT CASE WHEN player LIKE 'bot:%' THEN substr(player, 5)
                        ELSE substr(player, 9) END AS b
            FROM seats WHERE player LIKE 'bot:%' OR player LIKE 'builtin:%');
    UPDATE seats SET bot_id = (
      SELECT id FROM bots WHERE
        (CASE WHEN player LIKE 'bot:%' THEN substr(player, 5) ELSE substr(player, 9) END) =
        (CASE WHEN version = '' THEN name ELSE name || '@' || version END))
      WHERE player LIKE 'bot:%' OR player LIKE 'builtin:%';
    )sql",
     R"sql(
    CREATE TABLE launch_keys (
      bot TEXT PRIMARY KEY,  -- name@version
      key TEXT NOT NULL
    );
    INSERT INTO bots (name, version)
      SELECT DISTINCT split_part(b, '@', 1),
             CASE WHEN strpos(b, '@') > 0 THEN substr(b, strpos(b, '@') + 1) ELSE '' END
      FROM (SELECT CASE WHEN player LIKE 'bot:%' THEN substr(player, 5)
                        ELSE substr(player, 9) END AS b
            FROM seats WHERE player LIKE 'bot:%' OR player LIKE 'builtin:%') AS seat_bots
      ON CONFLICT DO NOTHING;
    UPDATE seats SET bot_id = (
      SELECT id FROM bots WHERE
        (CASE WHEN player LIKE 'bot:%' THEN substr(player, 5) ELSE substr(player, 9) END) =
        (CASE WHEN version = '' THEN name ELSE name || '@' || version END))
      WHERE player LIKE 'bot:%' OR player LIKE 'builtin:%';
    )sql"},
    // 4: bot accounts, their keys kept only as salted hashes. Launched bots
    // get a fresh key at each launch, so the keys kept in clear go.
    {R"sql(
    CREATE TABLE bot_accounts (
      name TEXT PRIMARY KEY,      -- name or name@version
      key_hash TEXT NOT NULL,     -- scrypt$N$r$p$salt$hash
      launched INTEGER NOT NULL,  -- 1: made for a bot a tournament launches
      created_at_ms INTEGER NOT NULL
    );
    DROP TABLE launch_keys;
    )sql",
     R"sql(
    CREATE TABLE bot_accounts (
      name TEXT PRIMARY KEY,      -- name or name@version
      key_hash TEXT NOT NULL,     -- scrypt$N$r$p$salt$hash
      launched BIGINT NOT NULL,   -- 1: made for a bot a tournament launches
      created_at_ms BIGINT NOT NULL
    );
    DROP TABLE launch_keys;
    )sql"},
    // 5: counters that only grow. next_sequence: the first match sequence
    // no server has been given (ids are handed out in reserved blocks, so
    // a crash never lets an id be given twice).
    {R"sql(
    CREATE TABLE IF NOT EXISTS counters (
      name TEXT PRIMARY KEY,
      value INTEGER NOT NULL
    );
    )sql",
     R"sql(
    CREATE TABLE IF NOT EXISTS counters (
      name TEXT PRIMARY KEY,
      value BIGINT NOT NULL
    );
    -- The row reservations lock, so that replicas take turns.
    INSERT INTO counters (name, value) VALUES ('next_sequence', 1) ON CONFLICT DO NOTHING;
    )sql"},
    // 6: how often each seat's stream was lost mid-match.
    {R"sql(
    ALTER TABLE seats ADD COLUMN disconnects INTEGER NOT NULL DEFAULT 0;
    )sql",
     R"sql(
    ALTER TABLE seats ADD COLUMN disconnects BIGINT NOT NULL DEFAULT 0;
    )sql"},
    // 7: seats kept in their primary key's order (no rowid, so no second
    // tree), and found by their bots through seats_by_bot only: the index
    // by the seat's player text cost each stored match four more inserts.
    {R"sql(
    CREATE TABLE seats_by_match (
      match_id TEXT NOT NULL REFERENCES matches(id),
      seat INTEGER NOT NULL,
      player TEXT NOT NULL,
      score REAL NOT NULL,
      rank INTEGER NOT NULL,
      timeouts INTEGER NOT NULL,
      illegal_answers INTEGER NOT NULL,
      forfeited INTEGER NOT NULL,
      bot_id INTEGER REFERENCES bots(id),
      disconnects INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (match_id, seat)
    ) WITHOUT ROWID;
    INSERT INTO seats_by_match (match_id, seat, player, score, rank, timeouts,
                                illegal_answers, forfeited, bot_id, disconnects)
      SELECT match_id, seat, player, score, rank, timeouts, illegal_answers, forfeited,
             bot_id, disconnects FROM seats;
    DROP TABLE seats;
    ALTER TABLE seats_by_match RENAME TO seats;
    CREATE INDEX seats_by_bot ON seats(bot_id, match_id);
    )sql",
     R"sql(
    DROP INDEX seats_by_player;  -- the table has no rowid tree to drop here
    )sql"},
    // 8: servers sharing a database share a tournament's matches: a server
    // leases a slot before it plays it, and a lease that is not renewed
    // (its server died) runs out, so another server plays the slot.
    // Slot -1 leases a whole tournament (a format one server runs at once).
    {R"sql(
    CREATE TABLE slot_leases (
      tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
      schedule_index INTEGER NOT NULL,
      holder TEXT NOT NULL,
      expires_at_ms INTEGER NOT NULL,
      PRIMARY KEY (tournament_id, schedule_index)
    ) WITHOUT ROWID;
    CREATE INDEX slot_leases_by_holder ON slot_leases(holder);
    )sql",
     R"sql(
    CREATE TABLE slot_leases (
      tournament_id BIGINT NOT NULL REFERENCES tournaments(id),
      schedule_index BIGINT NOT NULL,
      holder TEXT NOT NULL,
      expires_at_ms BIGINT NOT NULL,
      PRIMARY KEY (tournament_id, schedule_index)
    );
    CREATE INDEX slot_leases_by_holder ON slot_leases(holder);
    )sql"},
    // 9: the salts of seed commitments (engine/seed_commitment.h), as secret
    // as the seeds beside them. Matches and tournaments stored before have
    // none ('') and commit to nothing.
    {R"sql(
    ALTER TABLE matches ADD COLUMN seed_salt TEXT NOT NULL DEFAULT '';
    ALTER TABLE tournaments ADD COLUMN seed_salt TEXT NOT NULL DEFAULT '';
    )sql",
     R"sql(
    ALTER TABLE matches ADD COLUMN seed_salt TEXT NOT NULL DEFAULT '';
    ALTER TABLE tournaments ADD COLUMN seed_salt TEXT NOT NULL DEFAULT '';
    )sql"},
};

}  // namespace

const Migration* Migrations() { return kMigrations; }
std::size_t MigrationCount() { return std::size(kMigrations); }

}  // namespace hoard::db
