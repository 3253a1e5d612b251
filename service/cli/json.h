#ifndef HOARD_SERVICE_CLI_JSON_H_
#define HOARD_SERVICE_CLI_JSON_H_

// JSON output of the hoard program: a message with proto field names and
// every field, zero or not, so that programs reading it see a fixed shape.

#include <string>

#include "google/protobuf/message.h"
#include "google/protobuf/util/json_util.h"

namespace hoard::cli {

inline std::string ToJson(const google::protobuf::Message& message) {
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  (void)google::protobuf::util::MessageToJsonString(message, &json, options);
  return json;
}

}  // namespace hoard::cli

#endif  // HOARD_SERVICE_CLI_JSON_H_
