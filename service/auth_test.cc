#include "service/auth.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "bots/token_files.h"
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
  ASSERT_TRUE(accounts.Add("alice", "key-one-secret", /*replace=*/false, /*launched=*/false).ok());
  EXPECT_EQ(accounts.Add("alice", "key-two-secret", false, false).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(accounts.Check("alice", "key-one-secret").ok());
  EXPECT_TRUE(accounts.Check("alice", "key-one-secret").ok());  // remembered: no second hash
  EXPECT_EQ(accounts.Check("alice", "key-two-secret").code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(accounts.Check("bob", "key-one-secret").message(), HasSubstr("no bot account 'bob'"));
  // A new key replaces the old one, which then fails even though it matched.
  ASSERT_TRUE(accounts.Add("alice", "key-two-secret", /*replace=*/true, false).ok());
  EXPECT_EQ(accounts.Check("alice", "key-one-secret").code(), absl::StatusCode::kUnauthenticated);
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

TEST(AuthTest, ClientAddressesDropThePortAndGroupIpv6By64) {
  EXPECT_EQ(ClientAddress("ipv4:127.0.0.2:5000"), "127.0.0.2");
  EXPECT_EQ(ClientAddress("ipv6:[2001:db8::7:1]:5000"), "2001:db8::/64");
  EXPECT_EQ(ClientAddress("ipv6:[2001:db8::8]:6000"), "2001:db8::/64");
  EXPECT_EQ(ClientAddress("ipv6:[::ffff:10.0.0.1]:5000"), "10.0.0.1");
  EXPECT_EQ(ClientAddress("unix:/tmp/sock"), "unix:/tmp/sock");
}

TEST(AuthTest, WrongKeysCostNothingTwiceAndBackOffTheirAddressAndName) {
  KeyCheckLimits limits;
  limits.first_backoff = absl::Milliseconds(300);
  BotAccounts accounts(/*max_accounts=*/10, limits);
  ASSERT_TRUE(accounts.Add("alice", "right-key", false, false).ok());
  ASSERT_TRUE(accounts.Add("bob", "bobs-key", false, false).ok());
  // The key that made the account is known without a hash.
  EXPECT_EQ(accounts.CheckQuickly("alice", "right-key", "10.0.0.1"), absl::OkStatus());

  // A wrong key needs the slow check once ...
  EXPECT_EQ(accounts.CheckQuickly("alice", "guess-1", "10.0.0.2"), std::nullopt);
  EXPECT_EQ(accounts.Check("alice", "guess-1", "10.0.0.2").code(),
            absl::StatusCode::kUnauthenticated);
  // ... and never again.
  std::optional<absl::Status> again = accounts.CheckQuickly("alice", "guess-1", "10.0.0.9");
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(again->message(), HasSubstr("wrong key for bot 'alice'"));

  // Another key from that address waits out the address's backoff, for any
  // name; another address waits out the name's.
  std::optional<absl::Status> address = accounts.CheckQuickly("bob", "guess-2", "10.0.0.2");
  ASSERT_TRUE(address.has_value());
  EXPECT_EQ(address->code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(address->message(), HasSubstr("too many wrong keys from 10.0.0.2"));
  std::optional<absl::Status> name = accounts.CheckQuickly("alice", "guess-3", "10.0.0.3");
  ASSERT_TRUE(name.has_value());
  EXPECT_THAT(name->message(), HasSubstr("too many wrong keys for bot 'alice'"));
  // Bob, from elsewhere, is not slowed at all; nor is alice's known key.
  EXPECT_EQ(accounts.CheckQuickly("bob", "guess-2", "10.0.0.4"), std::nullopt);
  EXPECT_EQ(accounts.CheckQuickly("alice", "right-key", "10.0.0.2"), absl::OkStatus());

  // Once the backoff has passed, the right key is checked and clears it.
  absl::SleepFor(absl::Milliseconds(350));
  ASSERT_TRUE(accounts.Add("alice", "new-key", /*replace=*/true, false).ok());
  BotAccounts restarted(10, limits);  // nothing remembered
  ASSERT_TRUE(restarted.Add("carol", "carols-key", false, false).ok());
  EXPECT_EQ(restarted.Check("carol", "wrong", "10.0.0.5").code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(restarted.Check("carol", "wrong-2", "10.0.0.5").code(),
            absl::StatusCode::kResourceExhausted);
  absl::SleepFor(absl::Milliseconds(350));
  EXPECT_TRUE(restarted.Check("carol", "carols-key", "10.0.0.5").ok());
  // The next wrong key starts the backoff afresh (a short one).
  EXPECT_EQ(restarted.Check("carol", "wrong-3", "10.0.0.6").code(),
            absl::StatusCode::kUnauthenticated);
}

TEST(AuthTest, SlowChecksBeyondTheQueueAreRefusedAtOnce) {
  KeyCheckLimits limits;
  limits.max_waiting = 0;
  BotAccounts accounts(10, limits);
  ASSERT_TRUE(accounts.Add("alice", "right-key", false, false).ok());
  std::optional<absl::Status> outcome;
  accounts.CheckSlowly("alice", "guess", "10.0.0.1", /*create=*/false,
                       [&](absl::Status status) { outcome = status; });
  ASSERT_TRUE(outcome.has_value());  // answered here, at once
  EXPECT_EQ(outcome->code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(outcome->message(), HasSubstr("try again"));
}

TEST(AuthTest, ASlowCheckMayMakeTheAccountOfANewName) {
  BotAccounts accounts(10);
  absl::Notification done;
  absl::Status outcome;
  accounts.CheckSlowly("newbie", "first-key", "10.0.0.1", /*create=*/true,
                       [&](absl::Status status) {
                         outcome = status;
                         done.Notify();
                       });
  done.WaitForNotification();
  EXPECT_TRUE(outcome.ok()) << outcome;
  EXPECT_TRUE(accounts.Exists("newbie"));
  EXPECT_EQ(accounts.CheckQuickly("newbie", "first-key", "10.0.0.1"), absl::OkStatus());
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
  EXPECT_EQ(closed.CheckRead(nobody).code(), absl::StatusCode::kUnauthenticated);
  const absl::Status refused = open.CheckAdmin(nobody, "CreateMatch");
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(refused.message(), HasSubstr("CreateMatch needs the admin token"));

  const Principal bot = *open.Identify("Bearer alice:k1");
  EXPECT_EQ(bot.role, Principal::Role::kBot);
  EXPECT_EQ(open.CheckAdmin(bot, "AddBot").code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(closed.CheckRead(bot).ok());
  const Principal reader = *open.Identify("Bearer reader");
  EXPECT_TRUE(closed.CheckRead(reader).ok());
  EXPECT_EQ(open.CheckAdmin(reader, "AddBot").code(), absl::StatusCode::kPermissionDenied);

  EXPECT_EQ(open.Identify("Bearer guess").status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(open.Identify("Bearer alice:wrong").status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(open.Identify("Basic admin-one").status().code(), absl::StatusCode::kUnauthenticated);

  // A rotation: the old token stops working at once.
  tokens.Set({"admin-three"}, {});
  EXPECT_EQ(open.Identify("Bearer admin-two").status().code(), absl::StatusCode::kUnauthenticated);
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
  EXPECT_THAT(*bots::ReadTokenFile(dir + "/tokens"), ::testing::ElementsAre("first", "second"));
  {
    std::ofstream out(dir + "/empty");
    out << "# nothing\n";
  }
  EXPECT_EQ(bots::ReadTokenFile(dir + "/empty").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bots::ReadTokenFile(dir + "/missing").status().code(), absl::StatusCode::kNotFound);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hoard::service
