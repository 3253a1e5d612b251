#include "engine/record_views.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "engine/codec.h"
#include "engine/play_by_play.h"
#include "engine/registry.h"
#include "engine/status_macros.h"
#include "google/protobuf/util/json_util.h"

namespace hoard::engine {
namespace {

using google::protobuf::ListValue;
using google::protobuf::Value;

// The keys of a change that are no field of a view (docs/records.md).
constexpr char kSplice[] = "@";
constexpr char kReplace[] = "=";

bool Same(const Value& a, const Value& b) {
  if (a.kind_case() != b.kind_case()) return false;
  switch (a.kind_case()) {
    case Value::kNumberValue:
      return a.number_value() == b.number_value();
    case Value::kStringValue:
      return a.string_value() == b.string_value();
    case Value::kBoolValue:
      return a.bool_value() == b.bool_value();
    case Value::kStructValue: {
      const auto& x = a.struct_value().fields();
      const auto& y = b.struct_value().fields();
      if (x.size() != y.size()) return false;
      for (const auto& [key, value] : x) {
        auto it = y.find(key);
        if (it == y.end() || !Same(value, it->second)) return false;
      }
      return true;
    }
    case Value::kListValue: {
      const auto& x = a.list_value().values();
      const auto& y = b.list_value().values();
      if (x.size() != y.size()) return false;
      for (int i = 0; i < x.size(); ++i) {
        if (!Same(x[i], y[i])) return false;
      }
      return true;
    }
    default:  // null, or unset
      return true;
  }
}

bool Unset(const Value& value) { return value.kind_case() == Value::KIND_NOT_SET; }

// A change to an array: its unchanged ends kept, the elements paired in
// between patched in place, and one splice for what was removed or added;
// or the whole array, when that is smaller.
Value ListChange(const ListValue& before, const ListValue& after) {
  const int n = before.values_size();
  const int m = after.values_size();
  int prefix = 0;
  while (prefix < std::min(n, m) && Same(before.values(prefix), after.values(prefix))) ++prefix;
  int suffix = 0;
  while (suffix < std::min(n, m) - prefix &&
         Same(before.values(n - 1 - suffix), after.values(m - 1 - suffix))) {
    ++suffix;
  }
  const int paired = std::min(n, m) - prefix - suffix;
  Value change;
  auto& fields = *change.mutable_struct_value()->mutable_fields();
  for (int i = prefix; i < prefix + paired; ++i) {
    Value element = ViewChange(before.values(i), after.values(i));
    if (!Unset(element)) fields[absl::StrCat(i)] = std::move(element);
  }
  if (n != m) {
    ListValue& splice = *fields[kSplice].mutable_list_value();
    splice.add_values()->set_number_value(prefix + paired);
    splice.add_values()->set_number_value(n - suffix - prefix - paired);
    for (int i = prefix + paired; i < m - suffix; ++i) *splice.add_values() = after.values(i);
  }
  Value whole;
  *whole.mutable_list_value() = after;
  return change.ByteSizeLong() < whole.ByteSizeLong() ? change : whole;
}

// `after` as a change that replaces whatever was there: an object would be
// read as a change to it, so an object is wrapped.
Value Replacing(const Value& after) {
  if (!after.has_struct_value()) return after;
  Value replace;
  (*replace.mutable_struct_value()->mutable_fields())[kReplace] = after;
  return replace;
}

}  // namespace

Value ViewJson(const hoard::v1::View& view) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(view, &json, options);
  Value value;
  (void)google::protobuf::util::JsonStringToMessage(json, &value);
  return value;
}

Value ViewChange(const Value& before, const Value& after) {
  if (Same(before, after)) return Value();
  if (before.has_struct_value() && after.has_struct_value()) {
    const auto& was = before.struct_value().fields();
    Value change;
    auto& fields = *change.mutable_struct_value()->mutable_fields();
    for (const auto& [key, value] : after.struct_value().fields()) {
      auto it = was.find(key);
      if (it == was.end()) {
        fields[key] = Replacing(value);
      } else if (Value field = ViewChange(it->second, value); !Unset(field)) {
        fields[key] = std::move(field);
      }
    }
    for (const auto& [key, value] : was) {
      if (after.struct_value().fields().count(key) == 0) {
        fields[key].set_null_value(google::protobuf::NULL_VALUE);
      }
    }
    return change;
  }
  if (before.has_list_value() && after.has_list_value()) {
    return ListChange(before.list_value(), after.list_value());
  }
  return Replacing(after);
}

Value ApplyViewChange(const Value& before, const Value& change) {
  if (Unset(change)) return before;
  if (!change.has_struct_value()) return change;
  const auto& fields = change.struct_value().fields();
  if (auto replace = fields.find(kReplace); replace != fields.end()) return replace->second;
  if (before.has_list_value()) {
    std::vector<Value> items(before.list_value().values().begin(),
                             before.list_value().values().end());
    if (auto splice = fields.find(kSplice); splice != fields.end()) {
      const auto& args = splice->second.list_value().values();
      if (args.size() >= 2) {
        const auto at = static_cast<std::size_t>(
            std::clamp(args[0].number_value(), 0.0, static_cast<double>(items.size())));
        const auto remove = static_cast<std::size_t>(
            std::clamp(args[1].number_value(), 0.0, static_cast<double>(items.size() - at)));
        items.erase(items.begin() + at, items.begin() + at + remove);
        items.insert(items.begin() + at, args.begin() + 2, args.end());
      }
    }
    for (const auto& [key, value] : fields) {
      std::size_t index = 0;
      if (key != kSplice && absl::SimpleAtoi(key, &index) && index < items.size()) {
        items[index] = ApplyViewChange(items[index], value);
      }
    }
    Value after;
    for (Value& item : items) *after.mutable_list_value()->add_values() = std::move(item);
    return after;
  }
  Value after;
  auto& merged = *after.mutable_struct_value()->mutable_fields();
  if (before.has_struct_value()) merged = before.struct_value().fields();
  for (const auto& [key, value] : fields) {
    if (value.has_null_value()) {
      merged.erase(key);
    } else {
      auto it = merged.find(key);
      merged[key] = ApplyViewChange(it == merged.end() ? Value() : it->second, value);
    }
  }
  return after;
}

absl::StatusOr<hoard::v1::ReplayMatchResponse> ReplayViews(const MatchRecord& record, Seat observer,
                                                           ReplayForm form) {
  ASSIGN_OR_RETURN(const Game* game, FindGame(record.game));
  ASSIGN_OR_RETURN(const GameCodec* codec, FindCodec(record.game));
  if (record.ruleset_version != game->info().ruleset_version) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the record was played under ", record.game, " ruleset version ", record.ruleset_version,
        ", but this build has version ", game->info().ruleset_version));
  }
  const int seats = static_cast<int>(record.seats.size());
  if (observer != kSpectator && (observer < 0 || observer >= seats)) {
    return absl::InvalidArgumentError(
        absl::StrCat("seat ", observer, " is no seat of this ", seats, "-player match"));
  }
  absl::StatusOr<std::unique_ptr<State>> started =
      game->NewMatch({.num_players = seats, .seed = record.seed, .options = record.options});
  if (!started.ok()) {
    return absl::DataLossError(
        absl::StrCat("the record's match cannot be started: ", started.status().message()));
  }
  std::unique_ptr<State> state = *std::move(started);
  hoard::v1::ReplayMatchResponse replay;
  replay.set_game(record.game);
  replay.set_observer(observer);
  for (const std::string& seat : record.seats) replay.add_seats(seat);
  for (double score : record.scores) replay.add_scores(score);
  for (int rank : record.ranks) replay.add_ranks(rank);
  Value seen;
  seen.mutable_struct_value();
  auto add_step = [&](int step, const std::vector<ToldAction>& told) {
    hoard::v1::ReplayStep* out = replay.add_steps();
    out->set_step(step);
    if (!told.empty()) {
      out->set_seat(told.front().seat);
      out->set_text(told.front().text);
    }
    for (std::size_t i = 1; i < told.size(); ++i) {
      hoard::v1::ActionTaken* revealed = out->add_revealed();
      revealed->set_seat(told[i].seat);
      revealed->set_text(told[i].text);
      if (told[i].action) codec->ActionToProto(*told[i].action, revealed->mutable_action());
    }
    hoard::v1::View view;
    codec->ViewToProto(*state->ViewFor(observer), &view);
    if (form == ReplayForm::kViews) {
      *out->mutable_view() = std::move(view);
      return;
    }
    Value now = ViewJson(view);
    if (Value change = ViewChange(seen, now); !Unset(change)) *out->mutable_change() = change;
    seen = std::move(now);
  };
  add_step(0, {});
  PlayByPlay play_by_play;
  for (std::size_t i = 0; i < record.actions.size(); ++i) {
    const RecordedAction& action = record.actions[i];
    std::vector<ToldAction> told =
        play_by_play.Tell(*state, action.seat, action.action, action.text, false);
    if (absl::Status applied = state->Apply(action.seat, action.action); !applied.ok()) {
      return absl::DataLossError(
          absl::StrCat("the record's action ", i + 1, " does not replay: ", applied.message()));
    }
    add_step(static_cast<int>(i + 1), told);
  }
  return replay;
}

}  // namespace hoard::engine
