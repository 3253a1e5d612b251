#ifndef HOARD_SERVICE_AUTH_H_
#define HOARD_SERVICE_AUTH_H_

// Who is asking, and what they may do (docs/security.md).
//
// Three roles. An *admin* presents one of the operator's admin tokens; it
// creates and cancels matches and tournaments and manages bot accounts. A
// *bot* presents its account's name and key (on the Play stream's hello, or
// as "NAME:KEY" in place of a token); it plays the seats it is given and
// reads. The *public* reads: games, finished matches, leaderboards,
// spectator views — unless the server is private, when reads need a read
// token (or a bot's or an admin's credentials).
//
// Credentials come in the call's metadata as "authorization: Bearer TOKEN".
// Keys and tokens are compared in constant time; bot keys are kept only as
// salted scrypt hashes.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "db/store.h"

namespace hoard::service {

struct Principal {
  enum class Role { kPublic, kReader, kBot, kAdmin };
  Role role = Role::kPublic;
  // Who, for limits and logs: "admin:<fingerprint>", "reader:<fingerprint>",
  // the bot's name; empty for the public.
  std::string name;

  bool is_admin() const { return role == Role::kAdmin; }
};

// The first 8 hex digits of the token's SHA-256: names a token in logs and
// limits without giving it away.
std::string Fingerprint(absl::string_view token);

// A salted scrypt hash of `key`, as "scrypt$N$r$p$<salt>$<hash>" (base64).
std::string HashKey(absl::string_view key);
// Whether `key` matches a hash made by HashKey. False for a malformed hash.
bool KeyMatches(absl::string_view key, absl::string_view hash);

// Equal-time comparison, so a secret cannot be guessed from response times.
bool SameSecret(absl::string_view a, absl::string_view b);

// The tokens in a file: one a line, blank lines and '#' comments skipped.
// kNotFound if it cannot be read, kInvalidArgument if it holds none.
absl::StatusOr<std::vector<std::string>> ReadTokenFile(const std::string& path);

// Where this user's Hoard servers keep generated tokens: $HOARD_STATE_DIR,
// else $XDG_STATE_HOME/hoard, else $HOME/.local/state/hoard.
std::string DefaultStateDir();

// The token kept in `dir`/`name`, made (128 random bits, mode 0600, the
// directory 0700) if the file does not exist yet. kUnavailable if it can be
// neither read nor made.
absl::StatusOr<std::string> EnsureTokenFile(const std::string& dir,
                                            const std::string& name);

// The bot accounts of a server: names and key hashes, kept in the store (if
// any) and in memory. Thread-safe.
class BotAccounts {
 public:
  explicit BotAccounts(int max_accounts) : max_accounts_(max_accounts) {}

  // Loads the store's accounts and keeps every change there from now on.
  absl::Status UseStore(db::MatchStore* store);

  // Makes the account `name` with `key` (kAlreadyExists if there is one,
  // unless `replace`: then its key changes). kResourceExhausted beyond the
  // limit. `launched`: made for a bot a tournament launches. A built-in
  // bot's name (of any game) is refused: kInvalidArgument.
  absl::Status Add(const std::string& name, const std::string& key,
                   bool replace, bool launched);
  // kNotFound if there is no such account.
  absl::Status Remove(const std::string& name);
  // OK if `key` is the account's. kUnauthenticated for an unknown name or a
  // wrong key; kUnavailable while other keys are being checked (the slow
  // hash runs for a few callers at a time; the others try again). A key
  // that matched once is remembered (as a digest) so that reconnects do not
  // pay for the slow hash again.
  absl::Status Check(const std::string& name, const std::string& key);

  bool Exists(const std::string& name) const;
  // nullopt if there is no such account.
  std::optional<bool> IsLaunched(const std::string& name) const;
  std::vector<std::string> Names() const;

 private:
  struct Account {
    std::string key_hash;
    bool launched = false;
    // A digest of the key that last matched, or empty.
    std::string verified;
  };

  // kAlreadyExists or kResourceExhausted if `name` cannot be added.
  absl::Status CheckRoom(const std::string& name, bool replace) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const int max_accounts_;
  mutable absl::Mutex mu_;
  int checking_ ABSL_GUARDED_BY(mu_) = 0;  // slow checks under way
  db::MatchStore* store_ ABSL_GUARDED_BY(mu_) = nullptr;
  std::map<std::string, Account> accounts_ ABSL_GUARDED_BY(mu_);
};

// The tokens a server accepts, replaceable while it serves (on SIGHUP).
class TokenSet {
 public:
  void Set(std::vector<std::string> admin, std::vector<std::string> read);
  // The principal `token` stands for, or nullopt if it is none of them.
  std::optional<Principal> Find(absl::string_view token) const;
  int admin_count() const;

 private:
  mutable absl::Mutex mu_;
  std::vector<std::string> admin_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> read_ ABSL_GUARDED_BY(mu_);
};

// Decides who a call's "authorization" metadata speaks for.
class Authenticator {
 public:
  // `private_reads`: reads need credentials too.
  Authenticator(const TokenSet* tokens, BotAccounts* accounts,
                bool private_reads)
      : tokens_(tokens), accounts_(accounts), private_reads_(private_reads) {}

  // The caller behind `authorization` (nullopt: no such metadata).
  // kUnauthenticated for a value that is no known token or bot credentials.
  absl::StatusOr<Principal> Identify(
      std::optional<absl::string_view> authorization) const;

  // May `who` read? kUnauthenticated on a private server without
  // credentials.
  absl::Status CheckRead(const Principal& who) const;
  // May `who` call the admin RPC `what` ("CreateMatch")? kUnauthenticated
  // without credentials, kPermissionDenied for a bot's or a read token.
  absl::Status CheckAdmin(const Principal& who, absl::string_view what) const;

 private:
  const TokenSet* const tokens_;
  BotAccounts* const accounts_;
  const bool private_reads_;
};

}  // namespace hoard::service

#endif  // HOARD_SERVICE_AUTH_H_
