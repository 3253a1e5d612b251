#ifndef HOARD_DB_FAULTY_STORE_H_
#define HOARD_DB_FAULTY_STORE_H_

// For tests: a store that passes every call to a real one, except that
// saving a match and reserving ids fail with a chosen error while a fault is
// set — what a lock held by another program or a full disk look like from
// above the store.

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "db/store.h"

namespace hoard::db {

class FaultyStore final : public MatchStore {
 public:
  explicit FaultyStore(std::unique_ptr<MatchStore> real) : real_(std::move(real)) {}

  // Saves and reservations fail with `fault` until it is cleared (OK).
  void SetFault(absl::Status fault) {
    absl::MutexLock lock(&mu_);
    fault_ = std::move(fault);
  }
  int failed_saves() const { return failed_saves_; }
  // The most results passed to one SaveFinishedBatch.
  int largest_batch() const { return largest_batch_; }
  // Results stored through this store.
  int stored() const { return stored_; }
  // Calls that read a tournament's results (RatedMatches, StoredSlots).
  int results_reads() const { return results_reads_; }

  absl::Status SaveFinished(std::int64_t sequence, const hoard::v1::Match& match,
                            const hoard::v1::MatchRecord& record,
                            const TournamentSlot* slot) override {
    if (absl::Status fault = Fault(); !fault.ok()) {
      ++failed_saves_;
      return fault;
    }
    return real_->SaveFinished(sequence, match, record, slot);
  }
  std::vector<absl::Status> SaveFinishedBatch(
      const std::vector<const FinishedResult*>& results) override {
    largest_batch_ = std::max<int>(largest_batch_, static_cast<int>(results.size()));
    if (absl::Status fault = Fault(); !fault.ok()) {
      failed_saves_ += static_cast<int>(results.size());
      return std::vector<absl::Status>(results.size(), fault);
    }
    std::vector<absl::Status> saved = real_->SaveFinishedBatch(results);
    stored_ += static_cast<int>(
        std::count_if(saved.begin(), saved.end(), [](const absl::Status& s) { return s.ok(); }));
    return saved;
  }
  void Encode(FinishedResult& result) const override { real_->Encode(result); }
  absl::StatusOr<std::int64_t> ReserveSequences(int count) override {
    if (absl::Status fault = Fault(); !fault.ok()) return fault;
    return real_->ReserveSequences(count);
  }

  absl::StatusOr<std::optional<StoredMatch>> Get(const std::string& id) override {
    return real_->Get(id);
  }
  absl::StatusOr<std::optional<hoard::v1::MatchRecord>> GetRecord(const std::string& id) override {
    return real_->GetRecord(id);
  }
  absl::StatusOr<std::vector<StoredMatch>> List(std::int64_t after, int limit,
                                                const MatchFilter& filter) override {
    return real_->List(after, limit, filter);
  }
  absl::StatusOr<std::vector<StoredMatch>> ListNewest(std::int64_t before, int limit,
                                                      const MatchFilter& filter) override {
    return real_->ListNewest(before, limit, filter);
  }
  absl::StatusOr<std::int64_t> LastSequence() override { return real_->LastSequence(); }
  absl::Status CheckFile() override { return real_->CheckFile(); }
  absl::StatusOr<std::int64_t> CreateTournament(const hoard::v1::TournamentSpec& spec,
                                                const std::string& spec_hash, int scheduled,
                                                const std::string& seed_salt) override {
    return real_->CreateTournament(spec, spec_hash, scheduled, seed_salt);
  }
  absl::StatusOr<std::optional<StoredTournament>> GetTournament(std::int64_t id) override {
    return real_->GetTournament(id);
  }
  absl::StatusOr<std::optional<StoredTournament>> FindTournament(
      const std::string& spec_hash) override {
    return real_->FindTournament(spec_hash);
  }
  absl::StatusOr<std::vector<StoredTournament>> ListTournaments() override {
    return real_->ListTournaments();
  }
  absl::Status SetTournamentStatus(std::int64_t id, hoard::v1::TournamentStatus status,
                                   const std::string& error) override {
    return real_->SetTournamentStatus(id, status, error);
  }
  absl::Status SetTournamentSpec(std::int64_t id, const hoard::v1::TournamentSpec& spec) override {
    return real_->SetTournamentSpec(id, spec);
  }
  absl::Status PutBotAccount(const BotAccount& account) override {
    return real_->PutBotAccount(account);
  }
  absl::Status DeleteBotAccount(const std::string& name) override {
    return real_->DeleteBotAccount(name);
  }
  absl::StatusOr<std::vector<BotAccount>> BotAccounts() override { return real_->BotAccounts(); }
  absl::StatusOr<std::vector<int>> StoredSlots(std::int64_t tournament_id) override {
    ++results_reads_;
    return real_->StoredSlots(tournament_id);
  }
  absl::StatusOr<bool> ClaimSlot(std::int64_t tournament_id, int schedule_index,
                                 const std::string& holder, absl::Duration ttl) override {
    return real_->ClaimSlot(tournament_id, schedule_index, holder, ttl);
  }
  absl::Status RenewLeases(const std::string& holder, absl::Duration ttl) override {
    return real_->RenewLeases(holder, ttl);
  }
  absl::Status ReleaseLeases(std::int64_t tournament_id, const std::string& holder) override {
    return real_->ReleaseLeases(tournament_id, holder);
  }
  absl::StatusOr<std::vector<RatedMatch>> RatedMatches(const RatingScope& scope) override {
    ++results_reads_;
    return real_->RatedMatches(scope);
  }
  absl::StatusOr<std::int64_t> ScopeVersion(const RatingScope& scope) override {
    return real_->ScopeVersion(scope);
  }
  absl::Status SaveRatingSnapshot(const RatingScope& scope, std::int64_t version,
                                  const hoard::v1::RatingSnapshot& snapshot) override {
    return real_->SaveRatingSnapshot(scope, version, snapshot);
  }
  absl::StatusOr<std::optional<std::pair<std::int64_t, hoard::v1::RatingSnapshot>>>
  LatestRatingSnapshot(const RatingScope& scope) override {
    return real_->LatestRatingSnapshot(scope);
  }

 private:
  absl::Status Fault() {
    absl::MutexLock lock(&mu_);
    return fault_;
  }

  std::unique_ptr<MatchStore> real_;
  absl::Mutex mu_;
  absl::Status fault_ ABSL_GUARDED_BY(mu_);
  std::atomic<int> failed_saves_{0};
  std::atomic<int> largest_batch_{0};
  std::atomic<int> stored_{0};
  std::atomic<int> results_reads_{0};
};

}  // namespace hoard::db

#endif  // HOARD_DB_FAULTY_STORE_H_
