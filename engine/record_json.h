#ifndef HOARD_ENGINE_RECORD_JSON_H_
#define HOARD_ENGINE_RECORD_JSON_H_

// Match records as hoard.v1.MatchRecord messages and as JSON files
// (proto/hoard/v1/record.proto; docs/records.md).

#include <string>

#include "absl/status/statusor.h"
#include "engine/record.h"
#include "hoard/v1/record.pb.h"

namespace hoard::engine {

hoard::v1::MatchRecord RecordToProto(const MatchRecord& record);
// kInvalidArgument for a message that is not a record.
absl::StatusOr<MatchRecord> RecordFromProto(const hoard::v1::MatchRecord& proto);

std::string RecordToJson(const MatchRecord& record);

// A record message as readers are given it: a compact (format 3) one
// expanded (ExpandRecord), any other as it is. Errors as ExpandRecord's.
absl::StatusOr<hoard::v1::MatchRecord> ExpandRecordProto(const hoard::v1::MatchRecord& proto);

// kInvalidArgument, naming the problem, for text that is not a record.
absl::StatusOr<MatchRecord> RecordFromJson(const std::string& json);

// Writes or reads a record file; errors name the file.
absl::Status WriteRecordFile(const std::string& path, const MatchRecord& record);
absl::StatusOr<MatchRecord> ReadRecordFile(const std::string& path);

}  // namespace hoard::engine

#endif  // HOARD_ENGINE_RECORD_JSON_H_
