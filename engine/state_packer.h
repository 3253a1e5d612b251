#ifndef HOARD_ENGINE_STATE_PACKER_H_
#define HOARD_ENGINE_STATE_PACKER_H_

// Two encodings of one description of a state.
//
// A game describes its full state once, as a template over a writer with
//   Num(v)    a number (|v| < 2^31),
//   Digit(v)  a small number (-1 to 70), as one character in the text,
//   Wide(v)   a 64-bit value (a random generator's state),
//   Mask(v)   a 64-bit set (of cards),
//   Mark(c)   a separator character,
//   Label(s)  a section's name ("\npile:"): one separator when packed,
//   List(r)   every number of a range, then Mark(';'),
// and gets from that one description both its canonical text (StateText:
// State::ToString()) and its fingerprint (StatePacker: State::Fingerprint()),
// so the two always cover the same fields.
//
// StatePacker packs the description into 32-bit words — a number as itself,
// a mark as a word no number takes, a wide value as two words — and hashes
// them with XXH3-64 (libxxhash), the same on every machine. The words spell
// the text's tokens one for one, so states whose texts differ pack
// differently, and their fingerprints differ but for a 64-bit collision.

#include <bit>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"

namespace hoard::engine {

class StatePacker {
 public:
  void Num(std::int64_t v) { Word(static_cast<std::uint32_t>(v)); }
  void Wide(std::uint64_t v) {
    Word(static_cast<std::uint32_t>(v));
    Word(static_cast<std::uint32_t>(v >> 32));
  }
  void Digit(int v) { Num(v); }
  void Mask(std::uint64_t v) { Wide(v); }
  void Mark(char c) { Word(kMarkBase + static_cast<unsigned char>(c)); }
  void Label(std::string_view /*name*/) { Mark(':'); }
  template <typename Range>
  void List(const Range& values) {
    for (const auto& v : values) Num(static_cast<std::int64_t>(v));
    Mark(';');
  }

  // XXH3-64 of the packed words (little-endian), seed 0.
  std::uint64_t Hash() const;

 private:
  // 0x80000000 + c: the most negative 32-bit numbers, which no field holds.
  static constexpr std::uint32_t kMarkBase = 0x80000000u;

  void Word(std::uint32_t w) {
    if constexpr (std::endian::native == std::endian::big) {
      w = __builtin_bswap32(w);
    }
    words_.push_back(w);
  }

  absl::InlinedVector<std::uint32_t, 512> words_;
};

// XXH3-64 of `text`, seed 0.
std::uint64_t HashText(std::string_view text);

// The text form: a number in decimal then ',', a digit as the character
// '0' + v, a wide value in decimal, a mask in hexadecimal then ',', a mark
// as its character, a label as itself.
class StateText {
 public:
  explicit StateText(std::size_t reserve = 256) { out_.reserve(reserve); }

  void Num(std::int64_t v) {
    if (v >= 0 && v < 10) {
      out_ += static_cast<char>('0' + v);
    } else {
      absl::StrAppend(&out_, v);
    }
    out_ += ',';
  }
  void Digit(int v) { out_ += static_cast<char>('0' + v); }
  void Wide(std::uint64_t v) { absl::StrAppend(&out_, v); }
  void Mask(std::uint64_t v) {
    absl::StrAppend(&out_, absl::Hex(v));
    out_ += ',';
  }
  void Mark(char c) { out_ += c; }
  void Label(std::string_view name) { out_ += name; }
  template <typename Range>
  void List(const Range& values) {
    for (const auto& v : values) Num(static_cast<std::int64_t>(v));
    Mark(';');
  }

  std::string Take() && { return std::move(out_); }

 private:
  std::string out_;
};

// A game's ToString() and Fingerprint() from its one description:
//   return TextOf([this](auto& out) { Describe(out); });
template <typename Describe>
std::string TextOf(const Describe& describe, std::size_t reserve = 256) {
  StateText text(reserve);
  describe(text);
  return std::move(text).Take();
}
template <typename Describe>
std::uint64_t FingerprintOf(const Describe& describe) {
  StatePacker packer;
  describe(packer);
  return packer.Hash();
}

}  // namespace hoard::engine

#endif  // HOARD_ENGINE_STATE_PACKER_H_
