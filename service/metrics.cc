#include "service/metrics.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace hoard::service {
namespace {

// A label value with \, " and newlines escaped, as the format asks.
std::string Escaped(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

void Family(std::string& out, const std::string& name, const std::string& type,
            const std::string& help) {
  absl::StrAppend(&out, "# HELP ", name, " ", help, "\n# TYPE ", name, " ", type, "\n");
}

}  // namespace

void Histogram::Observe(absl::Duration d) {
  const double seconds = absl::ToDoubleSeconds(d);
  std::size_t i = 0;
  while (i < kBounds.size() && seconds > kBounds[i]) ++i;
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  sum_ns_.fetch_add(absl::ToInt64Nanoseconds(d), std::memory_order_relaxed);
}

std::string Histogram::Render(const std::string& name, const std::string& labels) const {
  std::string out;
  const std::string prefix = labels.empty() ? "" : absl::StrCat(labels, ",");
  std::int64_t cumulative = 0;
  for (std::size_t i = 0; i <= kBounds.size(); ++i) {
    cumulative += buckets_[i].load(std::memory_order_relaxed);
    const std::string le = i < kBounds.size() ? absl::StrFormat("%g", kBounds[i]) : "+Inf";
    absl::StrAppend(&out, name, "_bucket{", prefix, "le=\"", le, "\"} ", cumulative, "\n");
  }
  const std::string braces = labels.empty() ? "" : absl::StrCat("{", labels, "}");
  absl::StrAppendFormat(&out, "%s_sum%s %.9f\n", name, braces,
                        sum_ns_.load(std::memory_order_relaxed) / 1e9);
  absl::StrAppend(&out, name, "_count", braces, " ", cumulative, "\n");
  return out;
}

GameMetrics& Metrics::Game(const std::string& id) {
  absl::MutexLock lock(&mu_);
  std::unique_ptr<GameMetrics>& game = games_[id];
  if (game == nullptr) game = std::make_unique<GameMetrics>();
  return *game;
}

void Metrics::ObserveStoreWrite(absl::Duration took, int matches) {
  store_write_seconds_.Observe(took);
  store_matches_.fetch_add(matches, std::memory_order_relaxed);
}

std::string Metrics::Render(const MetricsGauges& gauges) const {
  std::map<std::string, const GameMetrics*> games;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [id, game] : games_) games[id] = game.get();
  }
  auto load = [](const std::atomic<std::int64_t>& v) { return v.load(std::memory_order_relaxed); };
  std::string out;
  Family(out, "hoard_matches_running", "gauge", "Matches being played now.");
  for (const auto& [id, g] : games) {
    absl::StrAppend(&out, "hoard_matches_running{game=\"", Escaped(id), "\"} ",
                    load(g->started) - load(g->finished) - load(g->aborted), "\n");
  }
  Family(out, "hoard_matches_started_total", "counter", "Matches started.");
  for (const auto& [id, g] : games) {
    absl::StrAppend(&out, "hoard_matches_started_total{game=\"", Escaped(id), "\"} ",
                    load(g->started), "\n");
  }
  Family(out, "hoard_matches_ended_total", "counter",
         "Matches ended, by how: finished with a result, or aborted.");
  for (const auto& [id, g] : games) {
    absl::StrAppend(&out, "hoard_matches_ended_total{game=\"", Escaped(id),
                    "\",status=\"finished\"} ", load(g->finished), "\n");
    absl::StrAppend(&out, "hoard_matches_ended_total{game=\"", Escaped(id),
                    "\",status=\"aborted\"} ", load(g->aborted), "\n");
  }
  Family(out, "hoard_decisions_total", "counter",
         "Actions played, by who chose them: a bot over the network, a built-in bot, or the "
         "default of a seat that timed out or forfeited.");
  for (const auto& [id, g] : games) {
    for (const auto& [by, value] :
         {std::pair{"bot", &g->bot_decisions}, std::pair{"builtin", &g->builtin_decisions},
          std::pair{"default", &g->default_decisions}}) {
      absl::StrAppend(&out, "hoard_decisions_total{game=\"", Escaped(id), "\",by=\"", by, "\"} ",
                      load(*value), "\n");
    }
  }
  Family(out, "hoard_decision_seconds", "histogram",
         "From a decision request's sending to its accepted answer, bots over the network.");
  for (const auto& [id, g] : games) {
    out += g->decision_seconds.Render("hoard_decision_seconds",
                                      absl::StrCat("game=\"", Escaped(id), "\""));
  }
  Family(out, "hoard_timeouts_total", "counter", "Decision requests that timed out.");
  for (const auto& [id, g] : games) {
    absl::StrAppend(&out, "hoard_timeouts_total{game=\"", Escaped(id), "\"} ", load(g->timeouts),
                    "\n");
  }
  Family(out, "hoard_refused_answers_total", "counter",
         "Answers refused: illegal, malformed, or for no pending request.");
  for (const auto& [id, g] : games) {
    absl::StrAppend(&out, "hoard_refused_answers_total{game=\"", Escaped(id), "\"} ",
                    load(g->refused), "\n");
  }
  Family(out, "hoard_bots_connected", "gauge", "Bots with an open Play stream.");
  absl::StrAppend(&out, "hoard_bots_connected ", gauges.bots_connected, "\n");
  Family(out, "hoard_tournament_matches", "gauge",
         "A tournament's matches: scheduled, finished (stored), failed, running.");
  for (const MetricsGauges::TournamentProgress& t : gauges.tournaments) {
    const std::string labels = absl::StrCat("tournament=\"", t.id, "\",game=\"", Escaped(t.game),
                                            "\",status=\"", Escaped(t.status), "\"");
    for (const auto& [state, value] :
         {std::pair{"scheduled", t.scheduled}, std::pair{"finished", t.finished},
          std::pair{"failed", t.failed}, std::pair{"running", t.running}}) {
      absl::StrAppend(&out, "hoard_tournament_matches{", labels, ",state=\"", state, "\"} ", value,
                      "\n");
    }
  }
  Family(out, "hoard_ladder_entrants", "gauge",
         "A running ladder's entrants: all that joined it, and those present now.");
  for (const MetricsGauges::TournamentProgress& t : gauges.tournaments) {
    if (t.ladder.empty()) continue;
    const std::string labels =
        absl::StrCat("tournament=\"", t.id, "\",ladder=\"", Escaped(t.ladder), "\"");
    absl::StrAppend(&out, "hoard_ladder_entrants{", labels, ",state=\"joined\"} ", t.entrants, "\n",
                    "hoard_ladder_entrants{", labels, ",state=\"present\"} ", t.present, "\n");
  }
  Family(out, "hoard_ladder_evaluation_confidence", "gauge",
         "A frozen ladder's final evaluation: the posterior probability of its top's order.");
  for (const MetricsGauges::TournamentProgress& t : gauges.tournaments) {
    if (t.ladder.empty() || !t.frozen) continue;
    absl::StrAppend(&out, "hoard_ladder_evaluation_confidence{tournament=\"", t.id, "\",ladder=\"",
                    Escaped(t.ladder), "\"} ", t.confidence, "\n");
  }
  Family(out, "hoard_store_write_seconds", "histogram",
         "Commits of finished matches to the database: how long each took.");
  out += store_write_seconds_.Render("hoard_store_write_seconds", "");
  Family(out, "hoard_store_matches_written_total", "counter",
         "Finished matches committed to the database.");
  absl::StrAppend(&out, "hoard_store_matches_written_total ", load(store_matches_), "\n");
  return out;
}

}  // namespace hoard::service
