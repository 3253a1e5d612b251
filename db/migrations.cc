// The numbered migrations, each written once for both databases where it
// can be. In a text both run, words stand for what the two spell apart:
//   {int}            INTEGER in SQLite, BIGINT in PostgreSQL (the store reads
//                    64-bit numbers back)
//   {real}           REAL, DOUBLE PRECISION
//   {blob}           BLOB, BYTEA
//   {serial}         an integer key the database numbers: INTEGER (with
//                    PRIMARY KEY, SQLite's rowid), BIGSERIAL
//   {without_rowid}  SQLite's WITHOUT ROWID (a table kept in its key's
//                    order); nothing in PostgreSQL
// PostgreSQL's matches carry stored_order, what SQLite's rowid is: the order
// they were stored in.

#include "db/migrations.h"

#include <vector>

#include "absl/strings/str_replace.h"

namespace hoard::db {
namespace {

// A piece of a migration: one text both databases run, or one for each
// ("" for none).
struct Piece {
  const char* both = nullptr;
  const char* sqlite = nullptr;
  const char* postgresql = nullptr;
};

Piece Both(const char* sql) { return {.both = sql}; }
Piece Each(const char* sqlite, const char* postgresql) {
  return {.sqlite = sqlite, .postgresql = postgresql};
}
Piece PostgresqlOnly(const char* sql) { return {.sqlite = "", .postgresql = sql}; }

const std::vector<std::vector<Piece>>& Migrations() {
  static const auto* const migrations = new std::vector<std::vector<Piece>>{
      // 1: finished matches, their seats and their records.
      {Both(R"sql(
    CREATE TABLE matches (
      id TEXT PRIMARY KEY,
      sequence {int} NOT NULL UNIQUE,
      game TEXT NOT NULL,
      ruleset_version TEXT NOT NULL,
      seed {int} NOT NULL,
      status TEXT NOT NULL,
      actions {int} NOT NULL,
      stored_at_ms {int} NOT NULL,
      summary {blob} NOT NULL  -- hoard.v1.Match
    );
    CREATE TABLE seats (
      match_id TEXT NOT NULL REFERENCES matches(id),
      seat {int} NOT NULL,
      player TEXT NOT NULL,
      score {real} NOT NULL,
      rank {int} NOT NULL,
      timeouts {int} NOT NULL,
      illegal_answers {int} NOT NULL,
      forfeited {int} NOT NULL,
      PRIMARY KEY (match_id, seat)
    );
    CREATE INDEX seats_by_player ON seats(player, match_id);
    CREATE TABLE match_records (
      match_id TEXT PRIMARY KEY REFERENCES matches(id),
      record {blob} NOT NULL  -- hoard.v1.MatchRecord
    );
    )sql"),
       PostgresqlOnly(R"sql(
    -- The order matches were stored in.
    ALTER TABLE matches ADD COLUMN stored_order BIGSERIAL NOT NULL;
    )sql")},
      // 2: bots, tournaments, matches' place in them and timings, rating
      // snapshots.
      {Both(R"sql(
    CREATE TABLE bots (
      id {serial} PRIMARY KEY,
      name TEXT NOT NULL,
      version TEXT NOT NULL,
      UNIQUE (name, version)
    );
    CREATE TABLE tournaments (
      id {serial} PRIMARY KEY,
      name TEXT NOT NULL,
      game TEXT NOT NULL,
      spec {blob} NOT NULL,  -- hoard.v1.TournamentSpec
      spec_hash TEXT NOT NULL,
      status TEXT NOT NULL,
      error TEXT NOT NULL,
      scheduled {int} NOT NULL,
      created_at_ms {int} NOT NULL,
      updated_at_ms {int} NOT NULL
    );
    CREATE INDEX tournaments_by_spec ON tournaments(spec_hash, id);
    ALTER TABLE matches ADD COLUMN tournament_id {int} REFERENCES tournaments(id);
    ALTER TABLE matches ADD COLUMN schedule_index {int};
    ALTER TABLE matches ADD COLUMN block {int};
    ALTER TABLE matches ADD COLUMN started_at_ms {int};
    ALTER TABLE matches ADD COLUMN finished_at_ms {int};
    CREATE UNIQUE INDEX matches_by_slot ON matches(tournament_id, schedule_index)
      WHERE tournament_id IS NOT NULL;
    CREATE INDEX matches_by_game ON matches(game);
    ALTER TABLE seats ADD COLUMN bot_id {int} REFERENCES bots(id);
    CREATE INDEX seats_by_bot ON seats(bot_id, match_id);
    CREATE TABLE rating_snapshots (
      game TEXT NOT NULL,
      tournament_id {int} NOT NULL,  -- 0: every match of the game
      version {int} NOT NULL,        -- the scope's version it covers
      computed_at_ms {int} NOT NULL,
      snapshot {blob} NOT NULL,          -- hoard.v1.RatingSnapshot
      PRIMARY KEY (game, tournament_id, version)
    );
    )sql")},
      // 3: the keys of bots the runner launches; the bots of matches stored
      // before migration 2.
      {Both(R"sql(
    CREATE TABLE launch_keys (
      bot TEXT PRIMARY KEY,  -- name@version
      key TEXT NOT NULL
    );
    )sql"),
       // Matches stored before migration 2: their seats' bots.
       Each(R"sql(
    INSERT OR IGNORE INTO bots (name, version)
      SELECT CASE WHEN instr(b, '@') > 0 THEN substr(b, 1, instr(b, '@') - 1) ELSE b END,
             CASE WHEN instr(b, '@') > 0 THEN substr(b, instr(b, '@') + 1) ELSE '' END
      FROM (SELECT CASE WHEN player LIKE 'bot:%' THEN substr(player, 5)
                        ELSE substr(player, 9) END AS b
            FROM seats WHERE player LIKE 'bot:%' OR player LIKE 'builtin:%');
    )sql",
            R"sql(
    INSERT INTO bots (name, version)
      SELECT DISTINCT split_part(b, '@', 1),
             CASE WHEN strpos(b, '@') > 0 THEN substr(b, strpos(b, '@') + 1) ELSE '' END
      FROM (SELECT CASE WHEN player LIKE 'bot:%' THEN substr(player, 5)
                        ELSE substr(player, 9) END AS b
            FROM seats WHERE player LIKE 'bot:%' OR player LIKE 'builtin:%') AS seat_bots
      ON CONFLICT DO NOTHING;
    )sql"),
       Both(R"sql(
    UPDATE seats SET bot_id = (
      SELECT id FROM bots WHERE
        (CASE WHEN player LIKE 'bot:%' THEN substr(player, 5) ELSE substr(player, 9) END) =
        (CASE WHEN version = '' THEN name ELSE name || '@' || version END))
      WHERE player LIKE 'bot:%' OR player LIKE 'builtin:%';
    )sql")},
      // 4: bot accounts, their keys kept only as salted hashes. Launched bots
      // get a fresh key at each launch, so the keys kept in clear go.
      {Both(R"sql(
    CREATE TABLE bot_accounts (
      name TEXT PRIMARY KEY,      -- name or name@version
      key_hash TEXT NOT NULL,     -- scrypt$N$r$p$salt$hash
      launched {int} NOT NULL,  -- 1: made for a bot a tournament launches
      created_at_ms {int} NOT NULL
    );
    DROP TABLE launch_keys;
    )sql")},
      // 5: counters that only grow. next_sequence: the first match sequence
      // no server has been given (ids are handed out in reserved blocks, so
      // a crash never lets an id be given twice).
      {Both(R"sql(
    CREATE TABLE IF NOT EXISTS counters (
      name TEXT PRIMARY KEY,
      value {int} NOT NULL
    );
    )sql"),
       PostgresqlOnly(R"sql(
    -- The row reservations lock, so that replicas take turns.
    INSERT INTO counters (name, value) VALUES ('next_sequence', 1) ON CONFLICT DO NOTHING;
    )sql")},
      // 6: how often each seat's stream was lost mid-match.
      {Both(R"sql(
    ALTER TABLE seats ADD COLUMN disconnects {int} NOT NULL DEFAULT 0;
    )sql")},
      // 7: seats kept in their primary key's order (no rowid, so no second
      // tree), and found by their bots through seats_by_bot only: the index
      // by the seat's player text cost each stored match four more inserts.
      {Each(R"sql(
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
    )sql")},
      // 8: servers sharing a database share a tournament's matches: a server
      // leases a slot before it plays it, and a lease that is not renewed
      // (its server died) runs out, so another server plays the slot.
      // Slot -1 leases a whole tournament (a format one server runs at once).
      {Both(R"sql(
    CREATE TABLE slot_leases (
      tournament_id {int} NOT NULL REFERENCES tournaments(id),
      schedule_index {int} NOT NULL,
      holder TEXT NOT NULL,
      expires_at_ms {int} NOT NULL,
      PRIMARY KEY (tournament_id, schedule_index)
    ){without_rowid};
    CREATE INDEX slot_leases_by_holder ON slot_leases(holder);
    )sql")},
      // 9: the salts of seed commitments (engine/seed_commitment.h), as secret
      // as the seeds beside them. Matches and tournaments stored before have
      // none ('') and commit to nothing.
      {Both(R"sql(
    ALTER TABLE matches ADD COLUMN seed_salt TEXT NOT NULL DEFAULT '';
    ALTER TABLE tournaments ADD COLUMN seed_salt TEXT NOT NULL DEFAULT '';
    )sql")},
      // 10: matches left out of every leaderboard (Match.unrated: an unrated
      // challenge). Those stored before were all rated.
      {Both(R"sql(
    ALTER TABLE matches ADD COLUMN unrated {int} NOT NULL DEFAULT 0;
    )sql")},
      // 11: a match in one row. Its seats are packed in the row (seats:
      // hoard.db.StoredSeats, db/stored_seats.proto) and so is its compact
      // record; bot_matches finds each bot's matches; the status is its
      // number (hoard.v1.MatchStatus), and stored_at_ms, which nothing read,
      // goes. Rows stored before keep their seats in their summaries (every
      // summary held them), and are read from there.
      {Each(R"sql(
    CREATE TABLE matches_in_a_row (
      id TEXT PRIMARY KEY,
      sequence INTEGER NOT NULL UNIQUE,
      game TEXT NOT NULL,
      ruleset_version TEXT NOT NULL,
      seed INTEGER NOT NULL,
      status INTEGER NOT NULL,  -- hoard.v1.MatchStatus
      actions INTEGER NOT NULL,
      tournament_id INTEGER REFERENCES tournaments(id),
      schedule_index INTEGER,
      block INTEGER,
      started_at_ms INTEGER,
      finished_at_ms INTEGER,
      seed_salt TEXT NOT NULL DEFAULT '',
      unrated INTEGER NOT NULL DEFAULT 0,
      summary BLOB NOT NULL,  -- hoard.v1.Match: what the columns do not hold
      seats BLOB,             -- hoard.db.StoredSeats; NULL: in the summary
      record BLOB             -- hoard.v1.MatchRecord; NULL: none (aborted)
    );
    -- The rowid is the order matches were stored in: kept.
    INSERT INTO matches_in_a_row (rowid, id, sequence, game, ruleset_version, seed, status,
        actions, tournament_id, schedule_index, block, started_at_ms, finished_at_ms, seed_salt,
        unrated, summary, record)
      SELECT m.rowid, m.id, m.sequence, m.game, m.ruleset_version, m.seed,
             CASE m.status WHEN 'MATCH_STATUS_RUNNING' THEN 1 WHEN 'MATCH_STATUS_FINISHED' THEN 2
                           WHEN 'MATCH_STATUS_ABORTED' THEN 3 ELSE 0 END,
             m.actions, m.tournament_id, m.schedule_index, m.block, m.started_at_ms,
             m.finished_at_ms, m.seed_salt, m.unrated, m.summary,
             (SELECT r.record FROM match_records r WHERE r.match_id = m.id)
      FROM matches m ORDER BY m.rowid;
    CREATE TABLE bot_matches (
      bot_id INTEGER NOT NULL REFERENCES bots(id),
      builtin INTEGER NOT NULL,  -- 1: as a built-in bot, 0: as a bot account
      sequence INTEGER NOT NULL REFERENCES matches_in_a_row(sequence),
      PRIMARY KEY (bot_id, builtin, sequence)
    ) WITHOUT ROWID;
    INSERT OR IGNORE INTO bot_matches (bot_id, builtin, sequence)
      SELECT s.bot_id, CASE WHEN s.player LIKE 'builtin:%' THEN 1 ELSE 0 END, m.sequence
      FROM seats s JOIN matches m ON m.id = s.match_id WHERE s.bot_id IS NOT NULL;
    DROP TABLE match_records;
    DROP TABLE seats;
    DROP TABLE matches;
    ALTER TABLE matches_in_a_row RENAME TO matches;
    CREATE UNIQUE INDEX matches_by_slot ON matches(tournament_id, schedule_index)
      WHERE tournament_id IS NOT NULL;
    CREATE INDEX matches_by_game ON matches(game);
    )sql",
            R"sql(
    ALTER TABLE matches ALTER COLUMN status TYPE BIGINT USING
      CASE status WHEN 'MATCH_STATUS_RUNNING' THEN 1 WHEN 'MATCH_STATUS_FINISHED' THEN 2
                  WHEN 'MATCH_STATUS_ABORTED' THEN 3 ELSE 0 END;
    ALTER TABLE matches DROP COLUMN stored_at_ms;
    ALTER TABLE matches ADD COLUMN seats BYTEA;
    ALTER TABLE matches ADD COLUMN record BYTEA;
    UPDATE matches m SET record = r.record FROM match_records r WHERE r.match_id = m.id;
    CREATE TABLE bot_matches (
      bot_id BIGINT NOT NULL REFERENCES bots(id),
      builtin BIGINT NOT NULL,
      sequence BIGINT NOT NULL REFERENCES matches(sequence),
      PRIMARY KEY (bot_id, builtin, sequence)
    );
    INSERT INTO bot_matches (bot_id, builtin, sequence)
      SELECT s.bot_id, CASE WHEN s.player LIKE 'builtin:%' THEN 1 ELSE 0 END, m.sequence
      FROM seats s JOIN matches m ON m.id = s.match_id WHERE s.bot_id IS NOT NULL
      ON CONFLICT DO NOTHING;
    DROP TABLE match_records;
    DROP TABLE seats;
    )sql")},
  };
  return *migrations;
}

}  // namespace

std::size_t MigrationCount() { return Migrations().size(); }

std::string MigrationSql(std::size_t number, SqlDatabase database) {
  const bool sqlite = database == SqlDatabase::kSqlite;
  std::string sql;
  for (const Piece& piece : Migrations()[number - 1]) {
    if (piece.both != nullptr) {
      sql += absl::StrReplaceAll(piece.both, {{"{int}", sqlite ? "INTEGER" : "BIGINT"},
                                              {"{real}", sqlite ? "REAL" : "DOUBLE PRECISION"},
                                              {"{blob}", sqlite ? "BLOB" : "BYTEA"},
                                              {"{serial}", sqlite ? "INTEGER" : "BIGSERIAL"},
                                              {"{without_rowid}", sqlite ? " WITHOUT ROWID" : ""}});
    } else {
      sql += sqlite ? piece.sqlite : piece.postgresql;
    }
  }
  return sql;
}

}  // namespace hoard::db
