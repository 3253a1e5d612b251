#ifndef HOARD_TOURNAMENT_FORMAT_H_
#define HOARD_TOURNAMENT_FORMAT_H_

// A tournament format: which slots a tournament plays, in what order, and
// when it is over. The runner (runner.h) only plays slots: it asks its
// format for the next ones, plays them, tells the format how each ended,
// and stops once the format says the tournament is complete. The math each
// format uses lives apart (schedule.h, swiss.h, sprt.h); a format holds
// what the runner does with it.
//
//   fixed_schedule.h  round-robin, duplicate, gauntlet: the whole schedule
//                     is known from the start
//   swiss_format.h    Swiss: a round is paired once the one before is stored
//   sprt_format.h     a duplicate schedule that stops once its sequential
//                     test decides
//   ladder_format.h   a standing ladder: tables chosen among the entrants
//                     present, for as long as it runs
//
// Adding a format: a class of its own file implementing TournamentFormat,
// made by MakeFormat for the specs that ask for it, and named in
// IsLeasedWhole if its next slots depend on the last results.
//
// A standing format (a ladder) is never complete by itself: while it
// runs, the runner tells it every kPresencePoll who is present (Present),
// adds the participants it admitted (Joined) and asks Next again, whether
// or not anything is in flight, and tells it the stored spec every kSpecPoll
// (Update); it ends when it is cancelled or says it is complete, and counts
// failures in a row rather than in all.
//
// Thread safety: none. The runner calls a format under its own lock.

#include <memory>
#include <set>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "db/store.h"
#include "hoard/v1/arena.pb.h"
#include "hoard/v1/tournament.pb.h"
#include "tournament/schedule.h"
#include "tournament/standings.h"

namespace hoard::tournament {

class TournamentFormat {
 public:
  virtual ~TournamentFormat() = default;

  // Takes in what is stored of the tournament before this run: the slots
  // stored (`done`) and their results. Called once, before Next. kDataLoss
  // when the results cannot be this format's (a stored match that a Swiss
  // pairing does not seat).
  virtual absl::Status Resume(const std::set<int>& done,
                              const std::vector<db::RatedMatch>& stored) = 0;

  // The slots ready to be played that were not handed out before, in the
  // order to play them. Empty: none until more results come in, or none at
  // all. The runner asks once the format has resumed and after every slot
  // ends.
  virtual std::vector<ScheduledMatch> Next() = 0;

  // How a slot handed out by Next ended, told once per slot. Stored: stored
  // with `seats` (by seat). StoredElsewhere: another runner stored it
  // first; a non-OK status says why the tournament cannot go on. Lost: not
  // played, or not stored. A slot the runner leaves to the other servers
  // sharing the tournament (only in a format that IsLeasedWhole says no to)
  // is not told: the runner itself looks at the store for it later.
  virtual void Stored(const ScheduledMatch& slot, const std::vector<db::RatedSeat>& seats) = 0;
  virtual absl::Status StoredElsewhere(const ScheduledMatch& slot) = 0;
  virtual void Lost(const ScheduledMatch& slot) = 0;

  // Whether the tournament is over once `stored` of its slots are stored
  // (by any runner).
  virtual bool Complete(int stored) const = 0;
  // The slots of its schedule.
  virtual int scheduled() const = 0;
  // The most slots Next may hand out at once later (a Swiss round's
  // tables); 0: none beyond those ready at the start. The runner keeps
  // workers for them.
  virtual int MostAtOnce() const { return 0; }
  // Whether the seats of the slots not handed out yet are known; if not,
  // the runner prepares every participant while any slot is left.
  virtual bool SeatsKnownAhead() const { return true; }
  // Fills in the progress this format shows: the standings (from `elo`,
  // the tournament's live table), and a Swiss's round or a test's state.
  virtual void Describe(const Standings& elo, hoard::v1::TournamentProgress& progress) const;

  // A standing format (above).
  virtual bool Standing() const { return false; }
  // Who is connected to the host now, with the ladders each joined.
  virtual void Present(const hoard::v1::ListBotsResponse&) {}
  // The participants admitted since the last call, in order: their numbers
  // follow the spec's participants and those told before. Next seats only
  // participants told.
  virtual std::vector<hoard::v1::Participant> Joined() { return {}; }
  // The tournament's spec as stored now (a standing format's runner reads
  // it every kSpecPoll): what an admin changed on it since (a ladder's
  // final evaluation).
  virtual void Update(const hoard::v1::TournamentSpec&) {}
};

// How often a standing format's runner tells it who is present.
inline constexpr absl::Duration kPresencePoll = absl::Milliseconds(250);
// How often it reads the stored spec (Update).
inline constexpr absl::Duration kSpecPoll = absl::Seconds(2);

// The format of `spec` (normalized): a Swiss, an SPRT test (a spec whose
// sprt names a participant), or a fixed schedule. Errors as Schedule's.
absl::StatusOr<std::unique_ptr<TournamentFormat>> MakeFormat(const hoard::v1::TournamentSpec& spec);

// Whether servers sharing a store run a tournament of `spec` one at a time,
// whole (leasing slot -1): a format whose next matches depend on the last
// results (Swiss, an SPRT test, a ladder).
bool IsLeasedWhole(const hoard::v1::TournamentSpec& spec);

// Fills in the standings (and a Swiss's round) that a stored tournament
// shows without running it, from its stored `results`. kDataLoss for a
// stored spec that no longer makes a schedule; a Swiss's replay errors.
absl::Status DescribeStored(const hoard::v1::TournamentSpec& spec,
                            const std::vector<db::RatedMatch>& results,
                            hoard::v1::TournamentProgress& progress);

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_FORMAT_H_
