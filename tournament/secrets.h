#ifndef HOARD_TOURNAMENT_SECRETS_H_
#define HOARD_TOURNAMENT_SECRETS_H_

// What nobody may guess or see early: random keys, tokens and seeds from
// the operating system, and when the seed of a sealed match stops being a
// secret. Tournaments make keys for the bots they launch and seeds for
// specs that leave them unset; the arena makes seat tokens, account keys
// and match seeds the same way.

#include <cstddef>
#include <cstdint>
#include <string>

#include "db/store.h"
#include "hoard/v1/arena.pb.h"

namespace hoard::tournament {

// `size` random bytes from the operating system (getrandom).
void RandomBytes(unsigned char* out, std::size_t size);
// 128 random bits from the operating system, as 32 hex digits.
std::string RandomToken();
// 64 random bits from the operating system (a seed nobody can know).
std::uint64_t RandomSeed();

// Clears what tells `match`'s deal: its seed and the salt of its seed
// commitment (the commitment itself is public from the start).
void HideDeal(hoard::v1::Match& match);

// Whether a non-admin may see the seed and record of `match` (a match of
// `store`'s): always, unless it is sealed — then once its tournament is
// FINISHED or CANCELLED (a ladder's: once the match is over), and never
// for a sealed match of no tournament.
bool SealLifted(const hoard::v1::Match& match, db::MatchStore* store);

}  // namespace hoard::tournament

#endif  // HOARD_TOURNAMENT_SECRETS_H_
