#include "tournament/secrets.h"

#include <sys/random.h>

#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"

namespace hoard::tournament {

void RandomBytes(unsigned char* out, std::size_t size) {
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = getrandom(out + got, size - got, 0);
    if (n > 0) got += static_cast<std::size_t>(n);
  }
}

std::string RandomToken() {
  unsigned char bytes[16];
  RandomBytes(bytes, sizeof(bytes));
  std::string token;
  for (unsigned char byte : bytes) absl::StrAppendFormat(&token, "%02x", byte);
  return token;
}

std::uint64_t RandomSeed() {
  std::uint64_t seed = 0;
  RandomBytes(reinterpret_cast<unsigned char*>(&seed), sizeof(seed));
  return seed;
}

void HideDeal(hoard::v1::Match& match) {
  match.clear_seed();
  match.clear_seed_salt();
}

bool SealLifted(const hoard::v1::Match& match, db::MatchStore* store) {
  if (!match.sealed()) return true;
  if (match.tournament_id() == 0 || store == nullptr) return false;
  absl::StatusOr<std::optional<db::StoredTournament>> tournament =
      store->GetTournament(match.tournament_id());
  if (!tournament.ok() || !tournament->has_value()) return false;
  // A ladder never ends, and each of its deals is its own (ladder_format.h):
  // a match's seal lifts when the match is over.
  if ((*tournament)->spec.format() == hoard::v1::FORMAT_LADDER) {
    return match.status() == hoard::v1::MATCH_STATUS_FINISHED ||
           match.status() == hoard::v1::MATCH_STATUS_ABORTED;
  }
  return (*tournament)->status == hoard::v1::TOURNAMENT_STATUS_FINISHED ||
         (*tournament)->status == hoard::v1::TOURNAMENT_STATUS_CANCELLED;
}

}  // namespace hoard::tournament
