// hoard replay verify FILE: re-simulates a match record and checks it.
// hoard replay html FILE: one self-contained HTML file that replays it.
// hoard replay compact FILE: the record in the compact form a store keeps.

#include <zlib.h>

#include <iostream>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "engine/record.h"
#include "engine/record_json.h"
#include "engine/record_views.h"
#include "google/protobuf/util/json_util.h"
#include "hoard/v1/arena.pb.h"
#include "service/cli/commands.h"
#include "service/cli/flags.h"
#include "service/web/assets.h"

namespace hoard::cli {
namespace {

constexpr char kUsage[] = "usage: hoard replay verify|html|compact FILE";

const char* Asset(const std::string& path) {
  for (const service::WebAsset& asset : service::WebAssets()) {
    if (asset.path == path) return asset.body;
  }
  return "";
}

// `text` in gzip's format.
absl::StatusOr<std::string> Gzipped(const std::string& text) {
  z_stream z{};
  if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
    return absl::InternalError("zlib cannot start compressing");
  }
  std::string out(deflateBound(&z, text.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int done = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (done != Z_STREAM_END) return absl::InternalError("zlib cannot compress the replay");
  return out;
}

// The page: the web app's style and script, and every perspective's
// replay, so that it opens with no server and no network. To keep the page
// a small multiple of the record, each step carries the change from the one
// before, what the table was told of each action is written once (in the
// spectator's replay: the viewer reads it from there for every seat),
// fields at their defaults are left out, and the whole is gzipped (in
// base64; the page inflates it with the browser's DecompressionStream).
absl::StatusOr<std::string> ReplayHtml(const engine::MatchRecord& record, const std::string& name) {
  std::string replays;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  for (int observer = engine::kSpectator; observer < static_cast<int>(record.seats.size());
       ++observer) {
    absl::StatusOr<hoard::v1::ReplayMatchResponse> replay =
        engine::ReplayViews(record, observer, engine::ReplayForm::kChanges);
    if (!replay.ok()) return replay.status();
    replay->set_match_id(name);
    if (observer != engine::kSpectator) {
      for (hoard::v1::ReplayStep& step : *replay->mutable_steps()) {
        step.clear_step();
        step.clear_seat();
        step.clear_text();
        step.clear_revealed();
      }
    }
    std::string json;
    (void)google::protobuf::util::MessageToJsonString(*replay, &json, options);
    absl::StrAppend(&replays, replays.empty() ? "" : ",", "\"", observer, "\":", json);
  }
  // What the page shows of the deal: its seed, salt and commitment, as a
  // server's match would give them.
  options.always_print_primitive_fields = true;
  hoard::v1::Match match;
  match.set_seed(record.seed);
  match.set_seed_salt(record.seed_salt);
  match.set_seed_commitment(record.seed_commitment);
  std::string deal;
  (void)google::protobuf::util::MessageToJsonString(match, &deal, options);
  const std::string data =
      absl::StrCat("{\"match_id\":\"", absl::StrReplaceAll(name, {{"\\", "\\\\"}, {"\"", "\\\""}}),
                   "\",\"match\":", deal, ",\"replays\":{", replays, "}}");
  absl::StatusOr<std::string> gzipped = Gzipped(data);
  if (!gzipped.ok()) return gzipped.status();
  return absl::StrCat(
      "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>Hoard replay: ",
      record.game, "</title>\n<style>\n", Asset("/app.css"),
      "</style>\n</head>\n<body>\n<header><span class=\"brand\">Hoard</span></header>\n"
      "<main id=\"main\" aria-live=\"polite\"></main>\n<script>window.HOARD_REPLAY_GZIP = \"",
      absl::Base64Escape(*gzipped), "\";</script>\n<script>\n", Asset("/tables.js"),
      "</script>\n<script>\n", Asset("/app.js"), "</script>\n</body>\n</html>\n");
}

}  // namespace

int RunReplay(const std::vector<std::string>& args) {
  std::vector<std::string> words;
  CommandLine command(
      "replay",
      absl::StrCat(kUsage,
                   "\n\n"
                   "verify re-simulates the match record FILE (as written by 'hoard play\n"
                   "--record' or 'hoard match get ID --record') from its seed and actions,\n"
                   "and says whether it matches or where it first differs. A record that\n"
                   "carries a seed_commitment matches only if its seed and seed_salt hash\n"
                   "to it (docs/records.md). Exit status 0 when it matches, 1 when it does\n"
                   "not.\n\n"
                   "html prints one self-contained HTML file that replays the match step by\n"
                   "step, as any seat or a spectator saw it, with no server and no network\n"
                   "(the web app's replay viewer, and the match's views built in).\n\n"
                   "compact prints the record in the compact form a store keeps (format 3:\n"
                   "the actions packed and the final state's fingerprint; docs/records.md),\n"
                   "which verify and html read as well."));
  command.Words(&words);
  if (std::optional<int> exit = command.ParseOrExit(args)) return *exit;
  if (words.size() != 2 || (words[0] != "verify" && words[0] != "html" && words[0] != "compact")) {
    return Fail(kExitUsage,
                SubcommandError("replay", words, {"verify", "html", "compact"}, kUsage));
  }
  const std::string& path = words[1];
  absl::StatusOr<engine::MatchRecord> record = engine::ReadRecordFile(path);
  if (!record.ok()) return Fail(kExitFailure, std::string(record.status().message()));
  if (absl::Status status = engine::VerifyRecord(*record); !status.ok()) {
    return Fail(kExitFailure, absl::StrCat(path, " does not match: ", status.message()));
  }
  if (words[0] == "compact") {
    absl::StatusOr<engine::MatchRecord> compact = engine::CompactRecord(*record);
    if (!compact.ok()) return Fail(kExitFailure, std::string(compact.status().message()));
    std::cout << engine::RecordToJson(*compact) << "\n";
    return kExitOk;
  }
  const int format = record->format_version;
  // A compact record verified is expanded as it replays.
  if (absl::StatusOr<engine::MatchRecord> expanded = engine::ExpandRecord(*record); expanded.ok()) {
    record = std::move(expanded);
  } else {
    return Fail(kExitFailure, absl::StrCat(path, " does not match: ", expanded.status().message()));
  }
  if (words[0] == "html") {
    const std::size_t slash = path.find_last_of('/');
    absl::StatusOr<std::string> html =
        ReplayHtml(*record, slash == std::string::npos ? path : path.substr(slash + 1));
    if (!html.ok()) return Fail(kExitFailure, std::string(html.status().message()));
    std::cout << *html;
    return kExitOk;
  }
  std::cout << path << ": matches (" << record->game << " ruleset " << record->ruleset_version
            << ", seed " << record->seed << ", " << record->seats.size() << " seats, "
            << record->actions.size() << " actions"
            << (format == engine::kCompactRecordFormatVersion ? ", compact" : "") << ")\n"
            << (record->seed_commitment.empty()
                    ? "the deal carries no commitment: nothing shows it was fixed before play\n"
                    : absl::StrCat("the seed and salt hash to the deal's commitment ",
                                   record->seed_commitment, "\n"));
  return kExitOk;
}

}  // namespace hoard::cli
