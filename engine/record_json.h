#ifndef HOARD_ENGINE_RECORD_JSON_H_
#define HOARD_ENGINE_RECORD_JSON_H_

// Match records as JSON files, in the hoard.v1.MatchRecord shape
// (proto/hoard/v1/record.proto; docs/records.md).

#include <string>

#include "absl/status/statusor.h"
#include "engine/record.h"

namespace hoard::engine {

std::string RecordToJson(const MatchRecord& record);

// kInvalidArgument, naming the problem, for text that is not a record.
absl::StatusOr<MatchRecord> RecordFromJson(const std::string& json);

// Writes or reads a record file; errors name the file.
absl::Status WriteRecordFile(const std::string& path, const MatchRecord& record);
absl::StatusOr<MatchRecord> ReadRecordFile(const std::string& path);

}  // namespace hoard::engine

#endif  // HOARD_ENGINE_RECORD_JSON_H_
