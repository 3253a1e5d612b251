#ifndef HOARD_TOURNAMENT_SPRT_H_
#define HOARD_TOURNAMENT_SPRT_H_

// The sequential test of `hoard tournament --sprt` (docs/ratings.md, "SPRT"):
// is a candidate elo0 or elo1 Elo points stronger than its opponents? Pure
// functions over the candidate's per-block scores.
//
// A duplicate block plays one deal in every seat rotation. The candidate's
// score in a match is its mean pairwise result against the others (1 for a
// better place, 0.5 for the same, 0 for a worse one); a block's score is the
// mean over its matches. Under Bradley-Terry, a player d Elo points stronger
// scores ExpectedScore(d) against each opponent, whatever the player count.

#include <vector>

#include "hoard/v1/tournament.pb.h"

namespace hoard::tournament {

struct SprtParameters {
  double elo0 = 0;
  double elo1 = 5;
  double alpha = 0.05;
  double beta = 0.05;
};

// The parameters of `spec`, defaults filled in (alpha, beta 0.05).
SprtParameters SprtParametersOf(const hoard::v1::SprtSpec& spec);

// 1 / (1 + 10^(-elo / 400)).
double ExpectedScore(double elo);

// The Elo difference whose expected score is `score` (±infinity at 0 and 1).
double EloOfScore(double score);

// The candidate's score in one match: `places` by seat (1 = first; ties
// share), the candidate in seat `candidate`.
double PairwiseScore(const std::vector<int>& places, int candidate);

// The test after the blocks scored `block_scores` (in schedule order): the
// log-likelihood ratio of H1 against H0 under a normal model of the block
// scores, with their variance estimated from the blocks and one prior block
// of the largest variance a score in [0, 1] can have (1/4), which keeps a
// short run of identical blocks from deciding at once. `result` is H0 or H1
// once the ratio reaches a bound, UNDECIDED when `all_played` and it has not,
// else UNSPECIFIED.
hoard::v1::SprtState Sprt(const std::vector<double>& block_scores, const SprtParameters& params,
                          bool all_played);

// The same from the number of blocks and the sum of their scores and of
// their squares (for a test that grows a block at a time).
hoard::v1::SprtState SprtFromSums(int blocks, double sum, double sum_of_squares,
                                  const SprtParameters& params, bool all_played);

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_SPRT_H_
