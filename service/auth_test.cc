#include "service/auth.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "db/store.h"
#include "engine/clip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tournament/secrets.h"

namespace hoard::service {
namespace {

using ::testing::HasSubstr;

TEST(AuthTest, KeysAreKeptAsSaltedHashes) {
  const std::string a = HashKey("s3cret");
  const std::string b = HashKey("s3cret");
  EXPECT_NE(a, b);  // a fresh salt each time
  EXPECT_THAT(a, ::testing::StartsWith("scrypt$16384$8$1$"));
  EXPECT_THAT(a, ::testing::Not(HasSubstr("s3cret")));
  EXPECT_TRUE(KeyMatches("s3cret", a));
  EXPECT_TRUE(KeyMatches("s3cret", b));
  EXPECT_FALSE(KeyMatches("s3cret!", a));
  EXPECT_FALSE(KeyMatches("", a));
  EXPECT_FALSE(KeyMatches("s3cret", "scrypt$16384$8$1$bad"));
  EXPECT_FALSE(KeyMatches("s3cret", "plain"));
}

TEST(AuthTest, LongClientStringsAreClipped) {
  EXPECT_EQ(engine::Clip("alice"), "alice");
  const std::string clipped = engine::Clip(std::string(10000, 'x'));
  EXPECT_EQ(clipped.size(), 64u);
  EXPECT_THAT(clipped, ::testing::EndsWith("..."));
}

TEST(AuthTest, AccountsCheckKeysAndKeepOnlyHashes) {
  std::unique_ptr<db::MatchStore> store = *db::OpenSqliteStore(":memory:");
  BotAccounts accounts(/*max_accounts=*/2);
  ASSERT_TRUE(accounts.UseStore(store.get()).ok());
  ASSERT_TRUE(
      accounts.Add("alice", "key-one-secret", /*replace=*/false, /*launched=*/false).ok());
  EXPECT_EQ(accounts.Add("alice", "key-two-secret", false, false).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(accounts.Check("alice", "key-one-secret").ok());
  EXPECT_TRUE(
      accounts.Check("alice", "key-one-secret").ok());  // remembered: no second hash
  EXPECT_EQ(accounts.Check("alice", "key-two-secret").code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(accounts.Check("bob", "key-one-secret").message(),
              HasSubstr("no bot account 'bob'"));
  // A new key replaces the old one, which then fails even though it matched.
  ASSERT_TRUE(accounts.Add("alice", "key-two-secret", /*replace=*/true, false).ok());
  EXPECT_EQ(accounts.Check("alice", "key-one-secret").code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_TRUE(accounts.Check("alice", "key-two-secret").ok());
  ASSERT_TRUE(accounts.Add("bot2", "k", false, /*launched=*/true).ok());
  const absl::Status full = accounts.Add("bot3", "k", false, false);
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(full.message(), HasSubstr("--max-bot-accounts"));
  EXPECT_EQ(accounts.IsLaunched("bot2"), true);
  EXPECT_EQ(accounts.IsLaunched("alice"), false);
  EXPECT_EQ(accounts.IsLaunched("nobody"), std::nullopt);

  // The store holds hashes only, and a new server on it knows the accounts.
  const std::vector<db::BotAccount> stored = *store->BotAccounts();
  ASSERT_EQ(stored.size(), 2u);
  for (const db::BotAccount& account : stored) {
    EXPECT_THAT(account.key_hash, ::testing::StartsWith("scrypt$"));
    EXPECT_THAT(account.key_hash, ::testing::Not(HasSubstr("key-two-secret")));
  }
  BotAccounts restarted(10);
  ASSERT_TRUE(restarted.UseStore(store.get()).ok());
  EXPECT_TRUE(restarted.Check("alice", "key-two-secret").ok());
  ASSERT_TRUE(restarted.Remove("alice").ok());
  EXPECT_EQ(restarted.Remove("alice").code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(*store->BotAccounts(), ::testing::SizeIs(1));
}

TEST(AuthTest, CallersAreTheirTokensOrTheirBots) {
  TokenSet tokens;
  tokens.Set({"admin-one", "admin-two"}, {"reader"});
  BotAccounts accounts(10);
  ASSERT_TRUE(accounts.Add("alice", "k1", false, false).ok());
  const Authenticator open(&tokens, &accounts, /*private_reads=*/false);
  const Authenticator closed(&tokens, &accounts, /*private_reads=*/true);

  absl::StatusOr<Principal> admin = open.Identify("Bearer admin-two");
  ASSERT_TRUE(admin.ok());
  EXPECT_TRUE(admin->is_admin());
  EXPECT_EQ(admin->name, "admin:" + Fingerprint("admin-two"));
  EXPECT_NE(admin->name, (*open.Identify("Bearer admin-one")).name);
  EXPECT_TRUE(open.CheckAdmin(*admin, "CreateMatch").ok());

  const Principal nobody = *open.Identify(std::nullopt);
  EXPECT_TRUE(open.CheckRead(nobody).ok());
  EXPECT_EQ(closed.CheckRead(nobody).code(),
            absl::StatusCode::kUnauthenticated);
  const absl::Status refused = open.CheckAdmin(nobody, "CreateMatch");
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(refused.message(),
              HasSubstr("CreateMatch needs the admin token"));

  const Principal bot = *open.Identify("Bearer alice:k1");
  EXPECT_EQ(bot.role, Principal::Role::kBot);
  EXPECT_EQ(open.CheckAdmin(bot, "AddBot").code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(closed.CheckRead(bot).ok());
  const Principal reader = *open.Identify("Bearer reader");
  EXPECT_TRUE(closed.CheckRead(reader).ok());
  EXPECT_EQ(open.CheckAdmin(reader, "AddBot").code(),
            absl::StatusCode::kPermissionDenied);

  EXPECT_EQ(open.Identify("Bearer guess").status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(open.Identify("Bearer alice:wrong").status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(open.Identify("Basic admin-one").status().code(),
            absl::StatusCode::kUnauthenticated);

  // A rotation: the old token stops working at once.
  tokens.Set({"admin-three"}, {});
  EXPECT_EQ(open.Identify("Bearer admin-two").status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_TRUE(open.Identify("Bearer admin-three")->is_admin());
}

TEST(AuthTest, AGeneratedTokenIsPrivateAndKept) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("hoard-auth-" + tournament::RandomToken()))
          .string();
  absl::StatusOr<std::string> token = EnsureTokenFile(dir, "admin-token");
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_EQ(token->size(), 32u);
  struct stat info;
  ASSERT_EQ(stat((dir + "/admin-token").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600);
  // Made once: the next server reads the same.
  EXPECT_EQ(*EnsureTokenFile(dir, "admin-token"), *token);
  {
    std::ofstream out(dir + "/tokens");
    out << "# rotated in November\n\n  first  \nsecond\n";
  }
  EXPECT_THAT(*ReadTokenFile(dir + "/tokens"),
              ::testing::ElementsAre("first", "second"));
  {
    std::ofstream out(dir + "/empty");
    out << "# nothing\n";
  }
  EXPECT_EQ(ReadTokenFile(dir + "/empty").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadTokenFile(dir + "/missing").status().code(),
            absl::StatusCode::kNotFound);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hoard::service
