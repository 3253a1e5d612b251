#include "service/web/view_schema.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/descriptor.h"
#include "hoard/v1/arena.pb.h"

namespace hoard::service {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::FieldDescriptor;

// What an enum's value names share: the zero value's name without
// "UNSPECIFIED", else their common prefix up to an underscore.
std::string EnumPrefix(const EnumDescriptor& descriptor) {
  constexpr char kUnspecified[] = "UNSPECIFIED";
  const std::string& zero = descriptor.value(0)->name();
  if (descriptor.value(0)->number() == 0 && absl::EndsWith(zero, kUnspecified)) {
    return zero.substr(0, zero.size() - (sizeof(kUnspecified) - 1));
  }
  std::string common = zero;
  for (int i = 1; i < descriptor.value_count(); ++i) {
    const std::string& name = descriptor.value(i)->name();
    size_t n = 0;
    while (n < common.size() && n < name.size() && common[n] == name[n]) ++n;
    common.resize(n);
  }
  return common.substr(0, common.rfind('_') + 1);
}

// The JSON, written in the protocol's order (so the same on every run). Every
// name in it is a .proto identifier, letters, digits, '_' and '.', which JSON
// takes as they are between quotes.
class SchemaWriter {
 public:
  std::string Write() {
    const google::protobuf::OneofDescriptor& games =
        *hoard::v1::View::descriptor()->FindOneofByName("game");
    std::vector<std::string> views;
    for (int i = 0; i < games.field_count(); ++i) {
      const FieldDescriptor& game = *games.field(i);
      views.push_back(Quoted(game.name(), Quote(game.message_type()->full_name())));
      AddMessage(*game.message_type());
    }
    return absl::StrCat("{\"views\":{", absl::StrJoin(views, ","), "},\"messages\":{",
                        absl::StrJoin(messages_, ","), "},\"enums\":{", absl::StrJoin(enums_, ","),
                        "}}");
  }

 private:
  static std::string Quote(const std::string& name) { return absl::StrCat("\"", name, "\""); }
  static std::string Quoted(const std::string& key, const std::string& value) {
    return absl::StrCat(Quote(key), ":", value);
  }

  void AddEnum(const EnumDescriptor& descriptor) {
    if (!seen_.insert(descriptor.full_name()).second) return;
    std::vector<std::string> values;
    for (int i = 0; i < descriptor.value_count(); ++i) {
      values.push_back(Quote(descriptor.value(i)->name()));
    }
    enums_.push_back(Quoted(descriptor.full_name(),
                            absl::StrCat("{\"prefix\":", Quote(EnumPrefix(descriptor)),
                                         ",\"values\":[", absl::StrJoin(values, ","), "]}")));
  }

  void AddMessage(const Descriptor& descriptor) {
    if (!seen_.insert(descriptor.full_name()).second) return;
    std::vector<std::string> fields;
    for (int i = 0; i < descriptor.field_count(); ++i) {
      const FieldDescriptor& field = *descriptor.field(i);
      std::string entry = absl::StrCat("{\"name\":", Quote(field.name()));
      if (field.enum_type() != nullptr) {
        absl::StrAppend(&entry,
                        ",\"type\":\"enum\",\"of\":", Quote(field.enum_type()->full_name()));
        AddEnum(*field.enum_type());
      } else if (field.message_type() != nullptr) {
        absl::StrAppend(&entry,
                        ",\"type\":\"message\",\"of\":", Quote(field.message_type()->full_name()));
        AddMessage(*field.message_type());
      } else {
        absl::StrAppend(&entry, ",\"type\":", Quote(field.type_name()));
      }
      if (field.is_repeated()) absl::StrAppend(&entry, ",\"repeated\":true");
      fields.push_back(absl::StrCat(entry, "}"));
    }
    messages_.push_back(
        Quoted(descriptor.full_name(), absl::StrCat("[", absl::StrJoin(fields, ","), "]")));
  }

  absl::flat_hash_set<std::string> seen_;
  std::vector<std::string> messages_;
  std::vector<std::string> enums_;
};

}  // namespace

const std::string& ViewSchemaJson() {
  static const std::string* json = new std::string(SchemaWriter().Write());
  return *json;
}

}  // namespace hoard::service
