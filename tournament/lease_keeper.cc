#include "tournament/lease_keeper.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"

namespace hoard::tournament {

LeaseKeeper::LeaseKeeper(db::MatchStore* store, std::int64_t tournament_id, std::string holder,
                         absl::Duration ttl, Hooks hooks)
    : store_(store),
      id_(tournament_id),
      holder_(std::move(holder)),
      ttl_(ttl),
      hooks_(std::move(hooks)) {}

LeaseKeeper::~LeaseKeeper() { Stop(); }

absl::StatusOr<bool> LeaseKeeper::ClaimWhole() { return store_->ClaimSlot(id_, -1, holder_, ttl_); }

bool LeaseKeeper::Claim(int slot) {
  absl::StatusOr<bool> claimed = store_->ClaimSlot(id_, slot, holder_, ttl_);
  return claimed.ok() && *claimed;
}

void LeaseKeeper::Release() { store_->ReleaseLeases(id_, holder_).IgnoreError(); }

void LeaseKeeper::Start() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = false;
  }
  thread_ = std::thread([this] { Keep(); });
}

void LeaseKeeper::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void LeaseKeeper::Keep() {
  const absl::Duration every = ttl_ / 3;
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      if (mu_.AwaitWithTimeout(absl::Condition(&stopping_), every)) return;
    }
    if (absl::Status renewed = store_->RenewLeases(holder_, ttl_); !renewed.ok()) {
      if (hooks_.warn) {
        hooks_.warn(absl::StrCat("cannot renew this server's leases (", renewed.message(),
                                 "); other servers may play its matches again once they run out"));
      }
    }
    // Cancelled, or ended, by another server: this one stops too.
    absl::StatusOr<std::optional<db::StoredTournament>> stored = store_->GetTournament(id_);
    if (!stored.ok() || !stored->has_value()) continue;
    const hoard::v1::TournamentStatus status = (*stored)->status;
    if (status == hoard::v1::TOURNAMENT_STATUS_CANCELLED ||
        status == hoard::v1::TOURNAMENT_STATUS_FINISHED ||
        status == hoard::v1::TOURNAMENT_STATUS_FAILED) {
      ended_elsewhere_ = true;
      if (hooks_.on_ended) hooks_.on_ended(status);
    }
  }
}

}  // namespace hoard::tournament
