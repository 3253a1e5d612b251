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
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "bots/token_files.h"
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

// A token's fingerprint (bots/token_files.h).
using bots::Fingerprint;

// A salted scrypt hash of `key`, as "scrypt$N$r$p$<salt>$<hash>" (base64).
std::string HashKey(absl::string_view key);
// Whether `key` matches a hash made by HashKey. False for a malformed hash.
bool KeyMatches(absl::string_view key, absl::string_view hash);

// Equal-time comparison, so a secret cannot be guessed from response times.
bool SameSecret(absl::string_view a, absl::string_view b);

// The token kept in `dir`/`name`, made (128 random bits, mode 0600, the
// directory 0700) if the file does not exist yet. kUnavailable if it can be
// neither read nor made.
absl::StatusOr<std::string> EnsureTokenFile(const std::string& dir, const std::string& name);

// The address a call came from, from gRPC's peer string, for limits and
// logs: "ipv4:127.0.0.2:5000" is "127.0.0.2"; an IPv6 address stands for its
// /64 ("ipv6:[2001:db8::7]:5000" is "2001:db8::/64"), which one client
// usually holds whole; anything else is kept as it is.
std::string ClientAddress(absl::string_view peer);

// How a flood of wrong keys is kept from costing anyone else anything.
struct KeyCheckLimits {
  // After n wrong keys in a row from one address, or for one bot name, the
  // next key from there (or for that name) is checked only after
  // first_backoff * 2^(n-1), at most max_backoff; earlier ones are refused
  // at once (kResourceExhausted, saying when to come back).
  absl::Duration first_backoff = absl::Milliseconds(250);
  absl::Duration max_backoff = absl::Seconds(10);
  // Slow checks waiting their turn (each holds a hello, not a thread); more
  // are refused at once (kUnavailable: try again). Of an address that sent
  // a wrong key, one at a time: another is refused at once
  // (kResourceExhausted).
  int max_waiting = 64;
  // Callers that hold their thread while their key is checked (Check: a
  // NAME:KEY bearer); more are refused at once (kUnavailable).
  int max_blocked_callers = 2;
  // Wrong keys remembered per account: the same wrong key again is refused
  // without a hash.
  int remembered_wrong_keys = 8;
  // Addresses whose wrong keys are remembered; past it, the one heard from
  // least recently is forgotten.
  int max_addresses = 10000;
};

// The bot accounts of a server: names and key hashes, kept in the store (if
// any) and in memory. Thread-safe.
//
// A key is checked against its salted scrypt hash (~40 ms of a core) only on
// the accounts' own checker thread, which runs at the lowest CPU priority,
// one check at a time, never on a thread that serves calls. A key that
// matched once is remembered (as a digest) so that reconnects do not pay for
// the hash again; a wrong key is remembered too, so repeating it costs
// nothing; and wrong keys slow down only their own address and name
// (KeyCheckLimits).
class BotAccounts {
 public:
  explicit BotAccounts(int max_accounts, KeyCheckLimits limits = {});
  // Waits for the check under way; those waiting are answered kUnavailable.
  ~BotAccounts();

  BotAccounts(const BotAccounts&) = delete;
  BotAccounts& operator=(const BotAccounts&) = delete;

  // Loads the store's accounts and keeps every change there from now on.
  absl::Status UseStore(db::MatchStore* store);

  // Makes the account `name` with `key` (kAlreadyExists if there is one,
  // unless `replace`: then its key changes). kResourceExhausted beyond the
  // limit. `launched`: made for a bot a tournament launches. A built-in
  // bot's name (of any game) is refused: kInvalidArgument. Hashes `key` on
  // the calling thread: for the admin's calls and the server's own.
  absl::Status Add(const std::string& name, const std::string& key, bool replace, bool launched);
  // kNotFound if there is no such account.
  absl::Status Remove(const std::string& name);

  // The outcome of checking `key` for `name` from `address` (ClientAddress)
  // if it needs no slow hash: OK for the key that matched before;
  // kUnauthenticated for an unknown name (unless `create`) or a key refused
  // before; kResourceExhausted while the address or the name waits out its
  // backoff. nullopt if only the slow check can tell.
  std::optional<absl::Status> CheckQuickly(const std::string& name, const std::string& key,
                                           const std::string& address, bool create = false);
  // The slow check, on the checker thread: `done` is called there with the
  // outcome (kUnauthenticated for a wrong key), which is remembered for
  // CheckQuickly and the backoffs. With `create`, an unknown name gets an
  // account with `key` instead (open registration; the new key is hashed
  // there too). If max_waiting checks already wait, `done` is called at
  // once, here, with kUnavailable.
  void CheckSlowly(std::string name, std::string key, std::string address, bool create,
                   absl::AnyInvocable<void(absl::Status) &&> done);
  // CheckQuickly, else CheckSlowly, waiting for its outcome.
  absl::Status Check(const std::string& name, const std::string& key,
                     const std::string& address = "");

  bool Exists(const std::string& name) const;
  // nullopt if there is no such account.
  std::optional<bool> IsLaunched(const std::string& name) const;
  std::vector<std::string> Names() const;

 private:
  struct Backoff {
    int failures = 0;
    int checking = 0;                         // slow checks waiting or under way (of an address)
    absl::Time until = absl::InfinitePast();  // no slow check before
    absl::Time last = absl::InfinitePast();   // the last wrong key
  };
  struct Account {
    std::string key_hash;
    bool launched = false;
    // A digest of the key that last matched, or empty.
    std::string verified;
    // Digests of the last wrong keys, oldest first.
    std::deque<std::string> refused;
    Backoff backoff;
  };

  // kAlreadyExists or kResourceExhausted if `name` cannot be added.
  absl::Status CheckRoom(const std::string& name, bool replace) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::optional<absl::Status> Decided(const std::string& name, const std::string& digest,
                                      const std::string& address, bool create, absl::Time now) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The slow part of CheckSlowly, on the checker thread.
  absl::Status CheckNow(const std::string& name, const std::string& key, const std::string& address,
                        bool create);
  void NoteWrongKey(Backoff& backoff, absl::Time now) const;
  // The address's entry, made if need be (forgetting the least recent one
  // past max_addresses).
  Backoff& AddressBackoff(const std::string& address) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void CheckerLoop();
  bool CheckerHasWork() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return stopping_ || !waiting_.empty();
  }

  const int max_accounts_;
  const KeyCheckLimits limits_;
  mutable absl::Mutex mu_;
  db::MatchStore* store_ ABSL_GUARDED_BY(mu_) = nullptr;
  std::map<std::string, Account> accounts_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Backoff> addresses_ ABSL_GUARDED_BY(mu_);
  // The checker's queue.
  std::deque<absl::AnyInvocable<void(bool run) &&>> waiting_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int blocked_callers_ ABSL_GUARDED_BY(mu_) = 0;
  std::thread checker_;
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
  Authenticator(const TokenSet* tokens, BotAccounts* accounts, bool private_reads)
      : tokens_(tokens), accounts_(accounts), private_reads_(private_reads) {}

  // The caller behind `authorization` (nullopt: no such metadata), calling
  // from `address` (ClientAddress). kUnauthenticated for a value that is no
  // known token or bot credentials; a bot's key is checked as
  // BotAccounts::Check does (waiting for the checker thread if it must).
  absl::StatusOr<Principal> Identify(std::optional<absl::string_view> authorization,
                                     const std::string& address = "") const;

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
