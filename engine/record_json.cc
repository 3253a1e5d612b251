#include "engine/record_json.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "engine/status_macros.h"
#include "google/protobuf/util/json_util.h"
#include "hoard/v1/record.pb.h"

namespace hoard::engine {
namespace {

std::string Hex(std::uint64_t value) { return absl::StrCat(absl::Hex(value, absl::kZeroPad16)); }

// A fingerprint's 16 hex digits, or kInvalidArgument naming `what`.
absl::Status ReadHex(absl::string_view hex, std::uint64_t& value, absl::string_view what) {
  if (!absl::SimpleHexAtoi(hex, &value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a match record: ", what, " '", hex, "' is not hexadecimal"));
  }
  return absl::OkStatus();
}

}  // namespace

hoard::v1::MatchRecord RecordToProto(const MatchRecord& record) {
  hoard::v1::MatchRecord proto;
  proto.set_format(absl::StrCat(kRecordFormatPrefix, record.format_version));
  proto.set_game(record.game);
  proto.set_ruleset_version(record.ruleset_version);
  proto.set_seed(record.seed);
  for (const auto& [name, value] : record.options) {
    (*proto.mutable_options())[name] = value;
  }
  for (const std::string& seat : record.seats) proto.add_seats(seat);
  if (record.format_version == kCompactRecordFormatVersion) {
    hoard::v1::CompactActions* compact = proto.mutable_compact();
    compact->set_moves(record.moves);
    compact->set_final_state(Hex(record.final_state));
    for (const Checkpoint& checkpoint : record.checkpoints) {
      hoard::v1::Checkpoint* out = compact->add_checkpoints();
      out->set_step(checkpoint.step);
      out->set_state_after(Hex(checkpoint.state));
    }
  }
  for (const Zone& zone : record.setup) {
    hoard::v1::Zone* out = proto.add_setup();
    out->set_name(zone.name);
    for (const std::string& card : zone.cards) out->add_cards(card);
  }
  proto.mutable_actions()->Reserve(static_cast<int>(record.actions.size()));
  for (const RecordedAction& step : record.actions) {
    hoard::v1::RecordedAction* out = proto.add_actions();
    out->set_seat(step.seat);
    out->set_code(step.action.code());
    out->set_text(step.text);
    out->set_state_after(Hex(step.state_after));
  }
  for (double score : record.scores) proto.add_scores(score);
  for (int rank : record.ranks) proto.add_ranks(rank);
  if (!record.seed_commitment.empty()) proto.set_seed_commitment(record.seed_commitment);
  if (!record.seed_salt.empty()) proto.set_seed_salt(record.seed_salt);
  return proto;
}

std::string RecordToJson(const MatchRecord& record) {
  const hoard::v1::MatchRecord proto = RecordToProto(record);
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;  // seat 0 too
  std::string json;
  // Printing a message we just built cannot fail.
  (void)google::protobuf::util::MessageToJsonString(proto, &json, options);
  return json;
}

absl::StatusOr<MatchRecord> RecordFromJson(const std::string& json) {
  hoard::v1::MatchRecord proto;
  if (auto status = google::protobuf::util::JsonStringToMessage(json, &proto); !status.ok()) {
    // The parser's message goes on to quote the text on later lines.
    std::string message(status.message().data(), status.message().size());
    message.resize(std::min(message.find('\n'), message.size()));
    return absl::InvalidArgumentError(absl::StrCat("not a match record: ", message));
  }
  return RecordFromProto(proto);
}

absl::StatusOr<MatchRecord> RecordFromProto(const hoard::v1::MatchRecord& proto) {
  MatchRecord record;
  absl::string_view format = proto.format();
  if (!absl::ConsumePrefix(&format, kRecordFormatPrefix) ||
      !absl::SimpleAtoi(format, &record.format_version) ||
      record.format_version < kOldestRecordFormatVersion ||
      record.format_version > kNewestRecordFormatVersion) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a match record: format is '", proto.format(), "', expected '",
                     kRecordFormatPrefix, kRecordFormatVersion, "' (or the compact '",
                     kRecordFormatPrefix, kCompactRecordFormatVersion, "', or an older '",
                     kRecordFormatPrefix, kOldestRecordFormatVersion, "')"));
  }
  record.game = proto.game();
  record.ruleset_version = proto.ruleset_version();
  record.seed = proto.seed();
  record.options.insert(proto.options().begin(), proto.options().end());
  record.seats.assign(proto.seats().begin(), proto.seats().end());
  for (const hoard::v1::Zone& zone : proto.setup()) {
    record.setup.push_back({zone.name(), {zone.cards().begin(), zone.cards().end()}});
  }
  if (record.format_version == kCompactRecordFormatVersion) {
    if (proto.actions_size() > 0 || proto.setup_size() > 0) {
      return absl::InvalidArgumentError(
          "not a match record: a compact record keeps its actions in 'compact', and no setup");
    }
    record.moves = proto.compact().moves();
    RETURN_IF_ERROR(ReadHex(proto.compact().final_state(), record.final_state, "final_state"));
    for (const hoard::v1::Checkpoint& checkpoint : proto.compact().checkpoints()) {
      Checkpoint& read = record.checkpoints.emplace_back();
      read.step = checkpoint.step();
      RETURN_IF_ERROR(ReadHex(checkpoint.state_after(), read.state,
                              absl::StrCat("the checkpoint at step ", checkpoint.step())));
    }
  }
  for (int i = 0; i < proto.actions_size(); ++i) {
    const hoard::v1::RecordedAction& step = proto.actions(i);
    RecordedAction action{.seat = step.seat(), .action = Action(step.code()), .text = step.text()};
    RETURN_IF_ERROR(ReadHex(step.state_after(), action.state_after,
                            absl::StrCat("step ", i + 1, "'s state_after")));
    record.actions.push_back(std::move(action));
  }
  record.scores.assign(proto.scores().begin(), proto.scores().end());
  record.ranks.assign(proto.ranks().begin(), proto.ranks().end());
  record.seed_commitment = proto.seed_commitment();
  record.seed_salt = proto.seed_salt();
  return record;
}

absl::StatusOr<hoard::v1::MatchRecord> ExpandRecordProto(const hoard::v1::MatchRecord& proto) {
  if (proto.format() != absl::StrCat(kRecordFormatPrefix, kCompactRecordFormatVersion)) {
    return proto;
  }
  ASSIGN_OR_RETURN(MatchRecord read, RecordFromProto(proto));
  ASSIGN_OR_RETURN(MatchRecord expanded, ExpandRecord(read));
  return RecordToProto(expanded);
}

absl::Status WriteRecordFile(const std::string& path, const MatchRecord& record) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << RecordToJson(record);
  out.close();
  if (!out) {
    return absl::UnavailableError(absl::StrCat("cannot write ", path));
  }
  return absl::OkStatus();
}

absl::StatusOr<MatchRecord> ReadRecordFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<MatchRecord> record = RecordFromJson(text.str());
  if (!record.ok()) {
    return absl::Status(record.status().code(),
                        absl::StrCat(path, ": ", record.status().message()));
  }
  return record;
}

}  // namespace hoard::engine
