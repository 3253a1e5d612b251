#include "service/auth.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/notification.h"
#include "bots/bot.h"
#include "bots/token_files.h"
#include "engine/clip.h"
#include "engine/registry.h"
#include "engine/status_macros.h"
#include "tournament/secrets.h"

namespace hoard::service {
namespace {

// scrypt's parameters for new hashes: 16 MiB and ~40 ms a key, the scrypt
// paper's choice for interactive logins. Stored in each hash, so they may
// grow later.
constexpr std::uint64_t kScryptN = 16384;
constexpr std::uint64_t kScryptR = 8;
constexpr std::uint64_t kScryptP = 1;
constexpr std::size_t kSaltBytes = 16;
constexpr std::size_t kHashBytes = 32;
// At most this many keys are hashed at once (each takes 128·N·r bytes).
constexpr int kConcurrentHashes = 2;

std::string Sha256(absl::string_view data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  return std::string(reinterpret_cast<const char*>(digest), sizeof(digest));
}

// Bounds the memory that concurrent registrations spend on hashing.
absl::Mutex hash_mu;
int hashing ABSL_GUARDED_BY(hash_mu) = 0;

std::optional<std::string> Scrypt(absl::string_view key, absl::string_view salt, std::uint64_t n,
                                  std::uint64_t r, std::uint64_t p) {
  {
    absl::MutexLock lock(&hash_mu);
    hash_mu.Await(absl::Condition(
        +[](int* busy) { return *busy < kConcurrentHashes; }, &hashing));
    ++hashing;
  }
  std::string out(kHashBytes, '\0');
  const int ok = EVP_PBE_scrypt(
      key.data(), key.size(), reinterpret_cast<const unsigned char*>(salt.data()), salt.size(), n,
      r, p, /*maxmem=*/256ull << 20, reinterpret_cast<unsigned char*>(out.data()), out.size());
  absl::MutexLock lock(&hash_mu);
  --hashing;
  if (ok != 1) return std::nullopt;
  return out;
}

// A digest that recognises a key that matched before, cheaply. Keyed with
// this process's own random bytes, so it is worth nothing outside it.
std::string Remembered(absl::string_view key) {
  static const std::string* const pepper = [] {
    auto* bytes = new std::string(16, '\0');
    tournament::RandomBytes(reinterpret_cast<unsigned char*>(bytes->data()), bytes->size());
    return bytes;
  }();
  return Sha256(absl::StrCat(*pepper, key));
}

}  // namespace

bool SameSecret(absl::string_view a, absl::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= a[i] ^ b[i];
  return diff == 0;
}

std::string HashKey(absl::string_view key) {
  std::string salt(kSaltBytes, '\0');
  tournament::RandomBytes(reinterpret_cast<unsigned char*>(salt.data()), salt.size());
  std::optional<std::string> hash = Scrypt(key, salt, kScryptN, kScryptR, kScryptP);
  // scrypt fails only for parameters out of range, and these are fixed.
  if (!hash) std::abort();
  return absl::StrCat("scrypt$", kScryptN, "$", kScryptR, "$", kScryptP, "$",
                      absl::Base64Escape(salt), "$", absl::Base64Escape(*hash));
}

bool KeyMatches(absl::string_view key, absl::string_view hash) {
  std::vector<absl::string_view> parts = absl::StrSplit(hash, '$');
  std::uint64_t n = 0, r = 0, p = 0;
  std::string salt, expected;
  if (parts.size() != 6 || parts[0] != "scrypt" || !absl::SimpleAtoi(parts[1], &n) ||
      !absl::SimpleAtoi(parts[2], &r) || !absl::SimpleAtoi(parts[3], &p) ||
      !absl::Base64Unescape(parts[4], &salt) || !absl::Base64Unescape(parts[5], &expected) ||
      expected.empty() || n > (1u << 20) || r > 32 || p > 16) {
    return false;
  }
  std::optional<std::string> actual = Scrypt(key, salt, n, r, p);
  if (!actual) return false;
  actual->resize(expected.size());
  return SameSecret(*actual, expected);
}

absl::StatusOr<std::string> EnsureTokenFile(const std::string& dir, const std::string& name) {
  const std::string path = absl::StrCat(dir, "/", name);
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::UnavailableError(
        absl::StrCat("cannot make the state directory ", dir, ": ", error.message()));
  }
  ::chmod(dir.c_str(), 0700);
  // O_EXCL: of two servers starting at once, one writes and both read it.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) {
    const std::string line = tournament::RandomToken() + "\n";
    const bool written = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
    ::close(fd);
    if (!written) return absl::UnavailableError(absl::StrCat("cannot write ", path));
  }
  absl::StatusOr<std::vector<std::string>> tokens = bots::ReadTokenFile(path);
  if (!tokens.ok()) return absl::UnavailableError(tokens.status().message());
  return tokens->front();
}

std::string ClientAddress(absl::string_view peer) {
  absl::string_view rest = peer;
  if (absl::ConsumePrefix(&rest, "ipv4:")) {
    const std::size_t colon = rest.rfind(':');
    return std::string(rest.substr(0, colon));
  }
  if (absl::ConsumePrefix(&rest, "ipv6:")) {
    if (absl::ConsumePrefix(&rest, "[")) rest = rest.substr(0, rest.find(']'));
    in6_addr address;
    const std::string text(rest.substr(0, rest.find('%')));
    if (inet_pton(AF_INET6, text.c_str(), &address) != 1) return std::string(peer);
    // An IPv4 client of a dual-stack socket is that IPv4 address.
    if (IN6_IS_ADDR_V4MAPPED(&address)) {
      char v4[INET_ADDRSTRLEN];
      if (inet_ntop(AF_INET, &address.s6_addr[12], v4, sizeof(v4)) != nullptr) return v4;
    }
    for (int i = 8; i < 16; ++i) address.s6_addr[i] = 0;
    char out[INET6_ADDRSTRLEN];
    if (inet_ntop(AF_INET6, &address, out, sizeof(out)) == nullptr) return std::string(peer);
    return absl::StrCat(out, "/64");
  }
  return std::string(peer);
}

// ---- BotAccounts

BotAccounts::BotAccounts(int max_accounts, KeyCheckLimits limits)
    : max_accounts_(max_accounts), limits_(limits) {
  checker_ = std::thread([this] { CheckerLoop(); });
}

BotAccounts::~BotAccounts() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  checker_.join();
}

void BotAccounts::CheckerLoop() {
  // The lowest priority: the hash takes only what play and reads leave.
  ::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 19);
  for (;;) {
    absl::AnyInvocable<void(bool) &&> task;
    bool run = true;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(this, &BotAccounts::CheckerHasWork));
      if (waiting_.empty()) return;
      task = std::move(waiting_.front());
      waiting_.pop_front();
      run = !stopping_;
    }
    std::move(task)(run);
  }
}

// ---- BotAccounts

absl::Status BotAccounts::UseStore(db::MatchStore* store) {
  absl::StatusOr<std::vector<db::BotAccount>> stored = store->BotAccounts();
  if (!stored.ok()) return stored.status();
  absl::MutexLock lock(&mu_);
  store_ = store;
  for (db::BotAccount& account : *stored) {
    accounts_[account.name] = {.key_hash = std::move(account.key_hash),
                               .launched = account.launched};
  }
  return absl::OkStatus();
}

absl::Status BotAccounts::Add(const std::string& name, const std::string& key, bool replace,
                              bool launched) {
  for (const engine::Game* game : engine::AllGames()) {
    if (bots::MakeBot(name, *game, 0).ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "'", engine::Clip(name), "' is the name of a built-in bot; an account needs another"));
    }
  }
  {
    // The cheap refusals first: the hash is paid only for an account made.
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(CheckRoom(name, replace));
  }
  // Hashed outside the lock: the slow part holds up no one.
  const std::string hash = HashKey(key);
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckRoom(name, replace));
  if (store_ != nullptr) {
    RETURN_IF_ERROR(store_->PutBotAccount({.name = name, .key_hash = hash, .launched = launched}));
  }
  accounts_[name] = {.key_hash = hash, .launched = launched, .verified = Remembered(key)};
  return absl::OkStatus();
}

absl::Status BotAccounts::CheckRoom(const std::string& name, bool replace) const {
  const bool exists = accounts_.contains(name);
  if (exists && !replace) {
    return absl::AlreadyExistsError(absl::StrCat("bot '", name, "' already has an account"));
  }
  if (!exists && static_cast<int>(accounts_.size()) >= max_accounts_) {
    return absl::ResourceExhaustedError(
        absl::StrCat("the server already keeps ", accounts_.size(),
                     " bot accounts, its limit (--max-bot-accounts)"));
  }
  return absl::OkStatus();
}

absl::Status BotAccounts::Remove(const std::string& name) {
  absl::MutexLock lock(&mu_);
  auto it = accounts_.find(name);
  if (it == accounts_.end()) {
    return absl::NotFoundError(absl::StrCat("no bot account '", engine::Clip(name), "'"));
  }
  if (store_ != nullptr) {
    if (absl::Status s = store_->DeleteBotAccount(name); !s.ok()) return s;
  }
  accounts_.erase(it);
  return absl::OkStatus();
}

void BotAccounts::NoteWrongKey(Backoff& backoff, absl::Time now) const {
  backoff.failures = std::min(backoff.failures + 1, 30);
  backoff.last = now;
  backoff.until = now + std::min(limits_.first_backoff * (1 << std::min(backoff.failures - 1, 20)),
                                 limits_.max_backoff);
}

std::optional<absl::Status> BotAccounts::Decided(const std::string& name, const std::string& digest,
                                                 const std::string& address, bool create,
                                                 absl::Time now) const {
  auto it = accounts_.find(name);
  if (it == accounts_.end()) {
    if (create) return std::nullopt;
    return absl::UnauthenticatedError(absl::StrCat("no bot account '", engine::Clip(name),
                                                   "': an admin adds it with 'hoard bots add ",
                                                   engine::Clip(name), "'"));
  }
  const Account& account = it->second;
  if (!account.verified.empty() && SameSecret(account.verified, digest)) {
    return absl::OkStatus();
  }
  for (const std::string& refused : account.refused) {
    if (SameSecret(refused, digest)) {
      return absl::UnauthenticatedError(
          absl::StrCat("wrong key for bot '", engine::Clip(name), "'"));
    }
  }
  auto wait = [&](absl::Time until, const std::string& whose) -> std::optional<absl::Status> {
    if (now >= until) return std::nullopt;
    return absl::ResourceExhaustedError(
        absl::StrFormat("too many wrong keys %s: the next key is checked in %.1f s", whose,
                        absl::ToDoubleSeconds(until - now)));
  };
  if (auto found = addresses_.find(address); !address.empty() && found != addresses_.end()) {
    if (auto refused = wait(found->second.until, absl::StrCat("from ", engine::Clip(address)))) {
      return refused;
    }
  }
  return wait(account.backoff.until, absl::StrCat("for bot '", engine::Clip(name), "'"));
}

std::optional<absl::Status> BotAccounts::CheckQuickly(const std::string& name,
                                                      const std::string& key,
                                                      const std::string& address, bool create) {
  const std::string digest = Remembered(key);
  absl::MutexLock lock(&mu_);
  return Decided(name, digest, address, create, absl::Now());
}

void BotAccounts::CheckSlowly(std::string name, std::string key, std::string address, bool create,
                              absl::AnyInvocable<void(absl::Status) &&> done) {
  absl::Status refused;
  {
    absl::MutexLock lock(&mu_);
    Backoff* from = address.empty() ? nullptr : &AddressBackoff(address);
    if (from != nullptr && from->checking > 0 && from->failures > 0) {
      // An address that sent a wrong key gets one slow check at a time: the
      // rest of a flood from there is refused without waiting, and without
      // crowding out others. (Many bots of one place, registering at once
      // with their right keys, all wait their turn.)
      refused = absl::ResourceExhaustedError(absl::StrCat(
          "a key from ", engine::Clip(address), " is being checked: try again in a moment"));
    } else if (!stopping_ && static_cast<int>(waiting_.size()) < limits_.max_waiting) {
      if (from != nullptr) ++from->checking;
      waiting_.push_back([this, name = std::move(name), key = std::move(key),
                          address = std::move(address), create,
                          done = std::move(done)](bool run) mutable {
        absl::Status outcome = run ? CheckNow(name, key, address, create)
                                   : absl::UnavailableError("the server is stopping");
        if (!address.empty()) {
          absl::MutexLock lock(&mu_);
          --AddressBackoff(address).checking;
        }
        std::move(done)(std::move(outcome));
      });
      return;
    } else {
      refused =
          absl::UnavailableError("the server is checking other bots' keys: try again in a moment");
    }
  }
  std::move(done)(std::move(refused));
}

BotAccounts::Backoff& BotAccounts::AddressBackoff(const std::string& address) {
  if (auto it = addresses_.find(address); it != addresses_.end()) return it->second;
  if (static_cast<int>(addresses_.size()) >= limits_.max_addresses) {
    // Forget the address heard from least recently, unless it is being checked.
    auto oldest = addresses_.end();
    for (auto a = addresses_.begin(); a != addresses_.end(); ++a) {
      if (a->second.checking == 0 &&
          (oldest == addresses_.end() || a->second.last < oldest->second.last)) {
        oldest = a;
      }
    }
    if (oldest != addresses_.end()) addresses_.erase(oldest);
  }
  Backoff& backoff = addresses_[address];
  backoff.last = absl::Now();
  return backoff;
}

absl::Status BotAccounts::CheckNow(const std::string& name, const std::string& key,
                                   const std::string& address, bool create) {
  const std::string digest = Remembered(key);
  std::string hash;
  {
    absl::MutexLock lock(&mu_);
    // Another check may have settled it while this one waited.
    if (std::optional<absl::Status> decided = Decided(name, digest, address, create, absl::Now())) {
      return *decided;
    }
    if (auto it = accounts_.find(name); it != accounts_.end()) hash = it->second.key_hash;
  }
  if (hash.empty()) {  // `create`: a new account for the first key of a name
    absl::Status added = Add(name, key, /*replace=*/false, /*launched=*/false);
    if (added.code() != absl::StatusCode::kAlreadyExists) return added;
    return CheckNow(name, key, address, /*create=*/false);  // another stream won
  }
  const bool matches = KeyMatches(key, hash);
  absl::MutexLock lock(&mu_);
  const absl::Time now = absl::Now();
  auto it = accounts_.find(name);
  // Unless the account changed while the key was checked.
  const bool same = it != accounts_.end() && it->second.key_hash == hash;
  if (matches) {
    if (same) {
      it->second.verified = digest;
      it->second.backoff = {};
    }
    if (auto a = addresses_.find(address); a != addresses_.end()) {
      a->second.failures = 0;
      a->second.until = absl::InfinitePast();
    }
    return absl::OkStatus();
  }
  if (same) {
    it->second.refused.push_back(digest);
    while (static_cast<int>(it->second.refused.size()) > limits_.remembered_wrong_keys) {
      it->second.refused.pop_front();
    }
    NoteWrongKey(it->second.backoff, now);
  }
  if (!address.empty()) NoteWrongKey(AddressBackoff(address), now);
  return absl::UnauthenticatedError(absl::StrCat("wrong key for bot '", engine::Clip(name), "'"));
}

absl::Status BotAccounts::Check(const std::string& name, const std::string& key,
                                const std::string& address) {
  if (std::optional<absl::Status> quick = CheckQuickly(name, key, address)) return *quick;
  {
    // Each caller here holds its thread while it waits: only a few may.
    absl::MutexLock lock(&mu_);
    if (blocked_callers_ >= limits_.max_blocked_callers) {
      return absl::UnavailableError(
          "the server is checking other bots' keys: try again in a moment");
    }
    ++blocked_callers_;
  }
  absl::Notification checked;
  absl::Status outcome;
  CheckSlowly(name, key, address, /*create=*/false, [&](absl::Status status) {
    outcome = std::move(status);
    checked.Notify();
  });
  checked.WaitForNotification();
  absl::MutexLock lock(&mu_);
  --blocked_callers_;
  return outcome;
}

bool BotAccounts::Exists(const std::string& name) const {
  absl::MutexLock lock(&mu_);
  return accounts_.contains(name);
}

std::optional<bool> BotAccounts::IsLaunched(const std::string& name) const {
  absl::MutexLock lock(&mu_);
  auto it = accounts_.find(name);
  if (it == accounts_.end()) return std::nullopt;
  return it->second.launched;
}

std::vector<std::string> BotAccounts::Names() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> names;
  for (const auto& [name, account] : accounts_) names.push_back(name);
  return names;
}

// ---- TokenSet and Authenticator

void TokenSet::Set(std::vector<std::string> admin, std::vector<std::string> read) {
  absl::MutexLock lock(&mu_);
  admin_ = std::move(admin);
  read_ = std::move(read);
}

std::optional<Principal> TokenSet::Find(absl::string_view token) const {
  absl::MutexLock lock(&mu_);
  // Every token is compared, so the time taken tells nothing.
  bool admin = false, read = false;
  for (const std::string& known : admin_) admin |= SameSecret(known, token);
  for (const std::string& known : read_) read |= SameSecret(known, token);
  if (admin) return Principal{Principal::Role::kAdmin, absl::StrCat("admin:", Fingerprint(token))};
  if (read) return Principal{Principal::Role::kReader, absl::StrCat("reader:", Fingerprint(token))};
  return std::nullopt;
}

int TokenSet::admin_count() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(admin_.size());
}

absl::StatusOr<Principal> Authenticator::Identify(std::optional<absl::string_view> authorization,
                                                  const std::string& address) const {
  if (!authorization) return Principal{};
  absl::string_view value = absl::StripAsciiWhitespace(*authorization);
  if (!absl::ConsumePrefix(&value, "Bearer ") && !absl::ConsumePrefix(&value, "bearer ")) {
    return absl::UnauthenticatedError(
        "the authorization metadata must be 'Bearer TOKEN' (or 'Bearer "
        "NAME:KEY' for a bot)");
  }
  value = absl::StripAsciiWhitespace(value);
  if (std::optional<Principal> known = tokens_->Find(value)) return *known;
  // A bot's credentials: its name (which holds no ':') and key.
  const std::size_t colon = value.find(':');
  if (colon != absl::string_view::npos && accounts_ != nullptr) {
    const std::string name(value.substr(0, colon));
    if (absl::Status s = accounts_->Check(name, std::string(value.substr(colon + 1)), address);
        !s.ok()) {
      return s;
    }
    return Principal{Principal::Role::kBot, name};
  }
  return absl::UnauthenticatedError("the token is not one this server accepts");
}

absl::Status Authenticator::CheckRead(const Principal& who) const {
  if (!private_reads_ || who.role != Principal::Role::kPublic) return absl::OkStatus();
  return absl::UnauthenticatedError(
      "this server is private: reads need a token (metadata authorization: "
      "Bearer TOKEN)");
}

absl::Status Authenticator::CheckAdmin(const Principal& who, absl::string_view what) const {
  switch (who.role) {
    case Principal::Role::kAdmin:
      return absl::OkStatus();
    case Principal::Role::kPublic:
      return absl::UnauthenticatedError(
          absl::StrCat(what, " needs the admin token (metadata authorization: Bearer TOKEN)"));
    case Principal::Role::kBot:
      return absl::PermissionDeniedError(absl::StrCat(
          "bot '", engine::Clip(who.name), "' may not call ", what, ": it needs the admin token"));
    case Principal::Role::kReader:
      break;
  }
  return absl::PermissionDeniedError(
      absl::StrCat("a read token may not call ", what, ": it needs the admin token"));
}

}  // namespace hoard::service
