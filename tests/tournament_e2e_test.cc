// The Tournaments service end to end: a real server on loopback with a
// database, driven by a gRPC client as another service would.

#include <cstdio>
#include <set>

#include "absl/strings/str_cat.h"
#include "bots/client_auth.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "hoard/v1/tournament.grpc.pb.h"
#include "service/grpc_server.h"
#include "tournament/runner.h"
#include "tournament/spec.h"

namespace hoard {
namespace {

using ::testing::HasSubstr;
namespace v1 = ::hoard::v1;

std::string TempDb(const std::string& name) {
  const std::string path = absl::StrCat(::testing::TempDir(), "/", name);
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
  return path;
}

v1::TournamentSpec Spec(const std::string& text) {
  v1::TournamentSpec spec;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &spec));
  return spec;
}

constexpr char kLeague[] = R"pb(
  name: "league"
  game: "village"
  players_per_match: 3
  rounds: 5
  seed: 11
  participants { name: "r1" builtin: "random" }
  participants { name: "r2" builtin: "random" }
  participants { name: "f1" builtin: "first" })pb";

constexpr char kAdmin[] = "e2e-admin-token";

class TournamentE2eTest : public ::testing::Test {
 protected:
  void StartServer(const std::string& db) {
    server_ = *service::ArenaServer::Start(
        {.core = {.db_path = db, .admin_tokens = {kAdmin}}, .grpc = {.listen = "127.0.0.1:0"}});
    stub_ = v1::Tournaments::NewStub(bots::AuthorizedChannel(
        absl::StrCat("127.0.0.1:", server_->port()), grpc::InsecureChannelCredentials(), kAdmin));
  }

  // Follows the tournament until its stream ends; returns every update.
  std::vector<v1::Tournament> Watch(std::int64_t id) {
    grpc::ClientContext context;
    v1::WatchTournamentRequest request;
    request.set_id(id);
    auto reader = stub_->WatchTournament(&context, request);
    std::vector<v1::Tournament> updates;
    v1::Tournament update;
    while (reader->Read(&update)) updates.push_back(update);
    EXPECT_TRUE(reader->Finish().ok());
    return updates;
  }

  grpc::Status Create(const v1::TournamentSpec& spec, v1::Tournament* created) {
    grpc::ClientContext context;
    v1::CreateTournamentRequest request;
    *request.mutable_spec() = spec;
    return stub_->CreateTournament(&context, request, created);
  }

  std::unique_ptr<service::ArenaServer> server_;
  std::unique_ptr<v1::Tournaments::Stub> stub_;
};

TEST_F(TournamentE2eTest, ATournamentRunsIsWatchedAndItsResultsAreQueried) {
  StartServer(TempDb("tournament_e2e.db"));
  v1::Tournament created;
  ASSERT_TRUE(Create(Spec(kLeague), &created).ok());
  EXPECT_GT(created.id(), 0);
  EXPECT_EQ(created.progress().scheduled(), 15);

  const std::vector<v1::Tournament> updates = Watch(created.id());
  ASSERT_FALSE(updates.empty());
  EXPECT_EQ(updates.back().status(), v1::TOURNAMENT_STATUS_FINISHED);
  EXPECT_EQ(updates.back().progress().finished(), 15);
  for (std::size_t i = 1; i < updates.size(); ++i) {
    EXPECT_GE(updates[i].progress().finished(), updates[i - 1].progress().finished());
  }

  grpc::ClientContext get_context;
  v1::GetTournamentRequest get;
  get.set_id(created.id());
  v1::Tournament got;
  ASSERT_TRUE(stub_->GetTournament(&get_context, get, &got).ok());
  EXPECT_EQ(got.status(), v1::TOURNAMENT_STATUS_FINISHED);
  EXPECT_EQ(got.progress().standings_size(), 3);

  for (v1::RatingSystem system :
       {v1::RATING_SYSTEM_ML, v1::RATING_SYSTEM_ELO, v1::RATING_SYSTEM_OPENSKILL}) {
    grpc::ClientContext context;
    v1::GetLeaderboardRequest request;
    request.set_game("village");
    request.set_tournament_id(created.id());
    request.set_system(system);
    v1::Leaderboard board;
    ASSERT_TRUE(stub_->GetLeaderboard(&context, request, &board).ok());
    EXPECT_EQ(board.matches(), 15);
    ASSERT_EQ(board.rows_size(), 3);
    for (int i = 0; i < 3; ++i) {
      const v1::LeaderboardRow& row = board.rows(i);
      EXPECT_EQ(row.rank(), i + 1);
      EXPECT_EQ(row.matches(), 15);
      // OpenSkill ranks by mu - 3 sigma; its interval is mu ± 1.96 sigma.
      const double center =
          system == v1::RATING_SYSTEM_OPENSKILL ? row.openskill_mu() : row.rating();
      EXPECT_LE(row.low(), center);
      EXPECT_GE(row.high(), center);
      if (i > 0) {
        EXPECT_GE(board.rows(i - 1).rating(), board.rows(i).rating());
      }
    }
    EXPECT_THAT(board.interval_method(), HasSubstr("bootstrap"));
  }

  // Results, a page at a time: every match once.
  std::set<std::string> seen;
  std::string token;
  int pages = 0;
  do {
    grpc::ClientContext context;
    v1::ListResultsRequest request;
    request.set_tournament_id(created.id());
    request.set_page_size(4);
    request.set_page_token(token);
    v1::ListResultsResponse page;
    ASSERT_TRUE(stub_->ListResults(&context, request, &page).ok());
    for (const v1::Match& match : page.matches()) {
      EXPECT_TRUE(seen.insert(match.match_id()).second);
      EXPECT_EQ(match.tournament_id(), created.id());
      EXPECT_EQ(match.status(), v1::MATCH_STATUS_FINISHED);
    }
    token = page.next_page_token();
    ++pages;
  } while (!token.empty());
  EXPECT_EQ(seen.size(), 15u);
  EXPECT_EQ(pages, 4);

  grpc::ClientContext h2h_context;
  v1::GetHeadToHeadRequest h2h_request;
  h2h_request.set_tournament_id(created.id());
  v1::HeadToHeadTable table;
  ASSERT_TRUE(stub_->GetHeadToHead(&h2h_context, h2h_request, &table).ok());
  ASSERT_EQ(table.pairs_size(), 3);
  for (const v1::HeadToHead& pair : table.pairs()) {
    EXPECT_EQ(pair.wins() + pair.losses() + pair.draws(), 15);
  }

  grpc::ClientContext cancel_context;
  v1::CancelTournamentRequest cancel;
  cancel.set_id(created.id());
  v1::Tournament cancelled;
  const grpc::Status refused = stub_->CancelTournament(&cancel_context, cancel, &cancelled);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(refused.error_message(), HasSubstr("already TOURNAMENT_STATUS_FINISHED"));
}

TEST_F(TournamentE2eTest, BadRequestsGetClearErrors) {
  StartServer(TempDb("tournament_e2e_bad.db"));
  v1::Tournament created;
  grpc::Status status = Create(Spec(R"pb(game: "chess")pb"), &created);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("game: unknown game 'chess'"));
  status = Create(Spec(R"pb(game: "village"
                            players_per_match: 4
                            participants { name: "a" builtin: "random" }
                            participants { name: "b" builtin: "random" })pb"),
                  &created);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("participants: 2 participants cannot fill"));

  grpc::ClientContext get_context;
  v1::GetTournamentRequest get;
  get.set_id(404);
  v1::Tournament got;
  status = stub_->GetTournament(&get_context, get, &got);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("no tournament 404"));

  grpc::ClientContext board_context;
  v1::GetLeaderboardRequest board_request;
  v1::Leaderboard board;
  status = stub_->GetLeaderboard(&board_context, board_request, &board);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  grpc::ClientContext page_context;
  v1::ListResultsRequest page_request;
  page_request.set_page_token("not-a-token");
  v1::ListResultsResponse page;
  status = stub_->ListResults(&page_context, page_request, &page);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("page_token"));
}

TEST_F(TournamentE2eTest, ACancelledTournamentStopsAndKeepsWhatItPlayed) {
  StartServer(TempDb("tournament_e2e_cancel.db"));
  v1::TournamentSpec spec = Spec(kLeague);
  spec.set_rounds(30000);  // 90,000 matches: far more than the test waits for
  spec.set_concurrency(2);
  v1::Tournament created;
  ASSERT_TRUE(Create(spec, &created).ok());
  grpc::ClientContext cancel_context;
  v1::CancelTournamentRequest cancel;
  cancel.set_id(created.id());
  v1::Tournament ignored;
  ASSERT_TRUE(stub_->CancelTournament(&cancel_context, cancel, &ignored).ok());
  const std::vector<v1::Tournament> updates = Watch(created.id());
  ASSERT_FALSE(updates.empty());
  EXPECT_EQ(updates.back().status(), v1::TOURNAMENT_STATUS_CANCELLED);
  EXPECT_LT(updates.back().progress().finished(), 90000);
}

TEST_F(TournamentE2eTest, AServerThatStopsResumesItsTournamentsWhenItComesBack) {
  const std::string db = TempDb("tournament_e2e_restart.db");
  StartServer(db);
  v1::TournamentSpec spec = Spec(kLeague);
  spec.set_rounds(2000);  // 3 rotations of one subset: 6000 matches
  v1::Tournament created;
  ASSERT_TRUE(Create(spec, &created).ok());
  stub_.reset();
  server_.reset();  // stops the tournament after its matches in flight
  {
    std::unique_ptr<db::MatchStore> store = *db::OpenSqliteStore(db);
    EXPECT_EQ((*store->GetTournament(created.id()))->status, v1::TOURNAMENT_STATUS_STOPPED);
    EXPECT_LT(store->StoredSlots(created.id())->size(), 6000u);
  }
  StartServer(db);
  const std::vector<v1::Tournament> updates = Watch(created.id());
  ASSERT_FALSE(updates.empty());
  EXPECT_EQ(updates.back().status(), v1::TOURNAMENT_STATUS_FINISHED);
  EXPECT_EQ(updates.back().progress().finished(), 6000);
}

TEST_F(TournamentE2eTest, ATournamentThatFailedBecauseItsResultsCouldNotBeStoredResumes) {
  // As an older server left it: failed on its first save that met a lock.
  const std::string db = TempDb("tournament_e2e_failed_store.db");
  std::int64_t id = 0;
  {
    std::unique_ptr<db::MatchStore> store = *db::OpenSqliteStore(db);
    bool resumed = false;
    id = *tournament::CreateOrResume(*store, *tournament::Normalize(Spec(kLeague)), true, &resumed);
    ASSERT_TRUE(store
                    ->SetTournamentStatus(
                        id, v1::TOURNAMENT_STATUS_FAILED,
                        absl::StrCat(tournament::kCannotStoreResults, db, ": database is locked"))
                    .ok());
  }
  StartServer(db);
  const std::vector<v1::Tournament> updates = Watch(id);
  ASSERT_FALSE(updates.empty());
  EXPECT_EQ(updates.back().status(), v1::TOURNAMENT_STATUS_FINISHED);
  EXPECT_EQ(updates.back().progress().finished(), updates.back().progress().scheduled());
  EXPECT_EQ(updates.back().error(), "");
}

TEST_F(TournamentE2eTest, OnlyAdminsSeeTheCommandsOfTheOperatorsOwnTournaments) {
  // A tournament `hoard tournament` ran on the same database, with a command
  // participant, that failed naming its command.
  const std::string db = TempDb("tournament_e2e_commands.db");
  const std::string command = "python3 /srv/secret-strategy.py --level 9";
  std::int64_t id = 0;
  {
    std::unique_ptr<db::MatchStore> store = *db::OpenSqliteStore(db);
    v1::TournamentSpec spec = Spec(kLeague);
    spec.mutable_participants(2)->set_command(command);
    bool resumed = false;
    id = *tournament::CreateOrResume(*store, *tournament::Normalize(spec), true, &resumed);
    ASSERT_TRUE(store
                    ->SetTournamentStatus(id, v1::TOURNAMENT_STATUS_FAILED,
                                          absl::StrCat("participant 'f1' exited with status 1 "
                                                       "before it connected (command: ",
                                                       command, ")"))
                    .ok());
  }
  StartServer(db);
  auto anyone = v1::Tournaments::NewStub(grpc::CreateChannel(
      absl::StrCat("127.0.0.1:", server_->port()), grpc::InsecureChannelCredentials()));
  v1::GetTournamentRequest get;
  get.set_id(id);
  v1::Tournament shown, admin_view;
  v1::ListTournamentsResponse listed;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(anyone->GetTournament(&context, get, &shown).ok());
  }
  {
    grpc::ClientContext context;
    ASSERT_TRUE(anyone->ListTournaments(&context, {}, &listed).ok());
  }
  {
    grpc::ClientContext context;
    ASSERT_TRUE(stub_->GetTournament(&context, get, &admin_view).ok());
  }
  EXPECT_THAT(shown.SerializeAsString(), ::testing::Not(HasSubstr("secret-strategy")));
  EXPECT_THAT(listed.SerializeAsString(), ::testing::Not(HasSubstr("secret-strategy")));
  EXPECT_THAT(shown.error(), HasSubstr("exited with status 1"));
  EXPECT_EQ(shown.spec().participants(2).name(), "f1");
  EXPECT_EQ(shown.spec().seed(), 0u);  // not over: FAILED may resume
  EXPECT_EQ(admin_view.spec().participants(2).command(), command);
  EXPECT_EQ(admin_view.spec().seed(), 11u);
}

TEST_F(TournamentE2eTest, AServerWithoutADatabaseSaysTournamentsNeedOne) {
  server_ = *service::ArenaServer::Start(
      {.core = {.admin_tokens = {kAdmin}}, .grpc = {.listen = "127.0.0.1:0"}});
  stub_ = v1::Tournaments::NewStub(bots::AuthorizedChannel(
      absl::StrCat("127.0.0.1:", server_->port()), grpc::InsecureChannelCredentials(), kAdmin));
  v1::Tournament created;
  const grpc::Status status = Create(Spec(kLeague), &created);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("--db"));
}

}  // namespace
}  // namespace hoard
