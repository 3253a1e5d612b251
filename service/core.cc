#include "service/core.h"

#include <unistd.h>

#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "db/store.h"
#include "engine/status_macros.h"
#include "service/arena_host.h"

namespace hoard::service {
namespace {

// This process among the servers sharing a database: host, port, process
// and a random number (a restarted server is another holder).
std::string LeaseHolderName(const std::string& bots_address) {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  const std::size_t colon = bots_address.rfind(':');
  const std::string port = colon == std::string::npos ? "" : bots_address.substr(colon + 1);
  std::random_device random;
  return absl::StrCat(host, ":", port, "/", getpid(), "/", absl::Hex(random(), absl::kZeroPad8));
}

}  // namespace

absl::StatusOr<std::unique_ptr<ServerCore>> ServerCore::Create(const CoreOptions& options) {
  std::unique_ptr<ServerCore> core(new ServerCore(options));
  core->arena_ = std::make_unique<Arena>(options.limits);
  core->arena_->SetEventSink(options.events);
  if (!options.db_path.empty()) {
    ASSIGN_OR_RETURN(std::unique_ptr<db::MatchStore> store, db::OpenStore(options.db_path));
    db::StoreWriterOptions writer = options.store_writer;
    if (writer.spill_path.empty()) writer.spill_path = db::SpillPathFor(options.db_path);
    RETURN_IF_ERROR(core->arena_->UseStore(std::move(store), std::move(writer)));
  }
  core->tokens_.Set(options.admin_tokens, options.read_tokens);
  core->auth_ = std::make_unique<Authenticator>(&core->tokens_, &core->arena_->accounts(),
                                                options.private_reads);
  if (!options.catalog_path.empty()) RETURN_IF_ERROR(core->catalog_.Load(options.catalog_path));
  return core;
}

ServerCore::~ServerCore() {
  manager_published_.store(nullptr);
  manager_.reset();
}

absl::Status ServerCore::StartTournaments(const TournamentVenue& venue) {
  if (arena_->store() == nullptr || manager_ != nullptr) return absl::OkStatus();
  host_ = ArenaHost(arena_.get(), venue.bots_address);
  tournament::RunnerOptions runner = options_.tournament_runner;
  // On a database several servers share, they share its tournaments: each
  // leases the matches it plays under a name of its own.
  if (runner.lease_holder.empty()) runner.lease_holder = venue.lease_holder;
  if (db::IsPostgresUrl(options_.db_path) && runner.lease_holder.empty()) {
    runner.lease_holder = LeaseHolderName(venue.bots_address);
  }
  tournament::BotCatalogFile* catalog = &catalog_;
  runner.catalog = [catalog](const std::string& name) { return catalog->Find(name); };
  tournament::ManagerPolicy policy = options_.tournament_policy;
  BotAccounts* accounts = &arena_->accounts();
  policy.account_launched = [accounts](const std::string& name) {
    return accounts->IsLaunched(name);
  };
  manager_ = std::make_unique<tournament::TournamentManager>(arena_->store(), host_.get(),
                                                             std::move(runner), policy);
  manager_published_.store(manager_.get());
  return manager_->ResumeUnfinished();
}

void ServerCore::SetTokens(std::vector<std::string> admin, std::vector<std::string> read) {
  tokens_.Set(std::move(admin), std::move(read));
}

absl::Status ServerCore::ReloadCatalog() {
  if (options_.catalog_path.empty()) return absl::OkStatus();
  return catalog_.Load(options_.catalog_path);
}

std::string ServerCore::MetricsText() {
  MetricsGauges gauges;
  gauges.bots_connected = arena_->connected_bots();
  if (tournament::TournamentManager* manager = tournaments()) {
    for (const hoard::v1::Tournament& t : manager->Running()) {
      const hoard::v1::TournamentProgress& p = t.progress();
      gauges.tournaments.push_back(
          {.id = t.id(),
           .game = t.spec().game(),
           .status = hoard::v1::TournamentStatus_Name(t.status()).substr(18),
           .scheduled = p.scheduled(),
           .finished = p.finished(),
           .failed = p.failed(),
           .running = p.running(),
           .ladder = t.spec().format() == hoard::v1::FORMAT_LADDER ? t.spec().name() : "",
           .entrants = p.ladder().entrants(),
           .present = p.ladder().present(),
           .frozen = p.ladder().frozen(),
           .confidence = p.ladder().confidence()});
    }
  }
  return arena_->metrics().Render(gauges);
}

ServerCore::StopReport ServerCore::Stop(absl::Duration grace) {
  StopReport report;
  arena_->BeginShutdown();
  if (manager_) manager_->StopAll();
  report.running_at_stop = arena_->running_matches();
  const absl::Time deadline = absl::Now() + grace;
  while (arena_->running_matches() > 0 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  report.aborted = arena_->AbortRunning();
  manager_published_.store(nullptr);
  manager_.reset();  // its runners see their matches end, and stop
  report.not_stored = arena_->FlushStore(grace);
  return report;
}

}  // namespace hoard::service
