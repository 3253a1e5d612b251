#ifndef HOARD_TOURNAMENT_LADDER_FORMAT_H_
#define HOARD_TOURNAMENT_LADDER_FORMAT_H_

// A standing ladder (FORMAT_LADDER, docs/tournaments.md "Ladders"): no
// schedule; each next table is chosen by the matchmaker (matchmaker.h)
// among the entrants present, and numbered as it is chosen, for as long as
// the ladder runs. It is never complete: it ends when it is cancelled.
//
// Entrants are the spec's participants, then the bot accounts that joined,
// in the order they first joined (or, after a restart, first appear in the
// stored results): an entrant keeps its number, its results and so its
// rating when it leaves and comes back. Who is present is told by Present
// (the host's bots): a built-in participant always; a command or catalog
// participant while connected; a bot account while connected with a hello
// that names the ladder — any account when the ladder is open, otherwise
// the registered participants listed. An entrant is seated at most
// per_bot_concurrency times at once (and within the matches its own
// registration accepts), and at most `concurrency` tables are in flight.
//
// Final evaluation (spec.ladder.final_evaluation, set by FreezeLadder and
// told by Update, or in the spec it starts from): no new entrant is
// admitted; the matchmaker focuses on the order of the best `top`; after
// every few results stored from first_slot on, the posterior probability of
// that order is computed (2,000 draws), and the ladder is complete once it
// reaches the evaluation's confidence or match_budget results are stored.
//
// Every deal is a one-way function of the ladder's seed and the slot's
// number (the first 64 bits of SHA-256), so that the deal of a finished
// match, shown once it is over, tells nothing of the others.
//
// Not thread-safe (format.h).

#include <map>
#include <set>
#include <string>
#include <vector>

#include "hoard/v1/arena.pb.h"
#include "tournament/format.h"
#include "tournament/matchmaker.h"

namespace hoard::tournament {

// The deal of a ladder's slot `index`.
std::uint64_t LadderDealSeed(std::uint64_t ladder_seed, int index);

class LadderFormat : public TournamentFormat {
 public:
  // `spec`: normalized, FORMAT_LADDER.
  explicit LadderFormat(const hoard::v1::TournamentSpec& spec);

  absl::Status Resume(const std::set<int>& done,
                      const std::vector<db::RatedMatch>& stored) override;
  std::vector<ScheduledMatch> Next() override;
  void Stored(const ScheduledMatch& slot, const std::vector<db::RatedSeat>& seats) override;
  absl::Status StoredElsewhere(const ScheduledMatch& slot) override;
  void Lost(const ScheduledMatch& slot) override;
  bool Complete(int) const override { return done_; }
  int scheduled() const override { return next_index_; }
  int MostAtOnce() const override { return concurrency_; }
  bool SeatsKnownAhead() const override { return false; }
  bool Standing() const override { return true; }
  void Present(const hoard::v1::ListBotsResponse& bots) override;
  std::vector<hoard::v1::Participant> Joined() override;
  void Update(const hoard::v1::TournamentSpec& stored) override;
  void Describe(const Standings& elo, hoard::v1::TournamentProgress& progress) const override;

 private:
  struct Entrant {
    hoard::v1::Participant participant;
    std::string label;  // name or name@version
    bool listed = false;
    bool present = false;
    int capacity = 0;   // matches it may play at once now
    int in_flight = 0;  // handed out, end not told
  };
  // The entrant of a bot account or built-in label, added (as joined) if
  // new and `add`; -1 if unknown and not added.
  int EntrantOf(const std::string& label, bool builtin, bool add);
  // An entrant's table ended, either way.
  void Ended(const ScheduledMatch& slot);
  // Starts the final evaluation.
  void Freeze(const hoard::v1::FinalEvaluation& evaluation);
  // A result of slot `index` was stored (-1: none, check now): counts it
  // for the evaluation and checks whether the ranking has settled.
  void Evaluate(int index);
  // The posterior probability of the top's order now.
  double Confidence();

  const std::string name_;
  const std::uint64_t seed_;
  const bool open_;
  const int per_bot_;
  const int concurrency_;
  Matchmaker matchmaker_;
  std::vector<Entrant> entrants_;
  std::map<std::string, int> by_key_;  // "builtin:" / "bot:" + label
  std::size_t joined_told_ = 0;        // entrants told by Joined so far
  int next_index_ = 0;
  int tables_in_flight_ = 0;
  // The final evaluation, once frozen.
  bool frozen_ = false;
  hoard::v1::FinalEvaluation evaluation_;
  int evaluation_matches_ = 0;
  double confidence_ = 0;
  bool done_ = false;
  bool settled_ = false;
};

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_LADDER_FORMAT_H_
