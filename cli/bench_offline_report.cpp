#include "cli/bench_offline_report.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace pagedserve::cli {
namespace {

using sim::workload_request;

boost::json::value optional_json(const std::optional<double>& v) {
  return v ? boost::json::value(*v) : boost::json::value(nullptr);
}

unsigned long long ull(std::uint64_t v) { return static_cast<unsigned long long>(v); }

// One row of the table; "n/a" where the backend keeps no device clock.
void print_row(const std::string& label, const std::optional<double>& v, int precision) {
  if (!v) {
    std::printf("%-28s %12s\n", label.c_str(), "n/a");
  } else {
    std::printf("%-28s %12.*f\n", label.c_str(), precision, *v);
  }
}

void print_static(const offline_figures& f, const static_baseline_report& fixed) {
  std::printf("static batching (batch %u, %llu batches, %llu steps, %llu computed tokens)\n",
              fixed.batch_size, ull(fixed.num_batches), ull(fixed.steps),
              ull(fixed.computed_tokens));
  std::printf("%-28s %12.3f\n", "  wall time (s)", fixed.wall_s);
  std::printf("%-28s %12.1f\n", "  output tokens/s", fixed.output_tokens_per_s);
  std::printf("%-28s %12.2f\n", "continuous / static",
              ratio(f.output_tokens_per_s, fixed.output_tokens_per_s));
}

}  // namespace

result<peer_figure> parse_peer(std::string_view text) {
  const auto bad = [&](const std::string& why) {
    return make_error(error_code::invalid_argument,
                      "--peer '" + std::string(text) + "': " + why +
                          " (expected NAME=TOKENS_PER_S, e.g. hf-transformers=890)");
  };
  const std::size_t eq = text.rfind('=');
  if (eq == std::string_view::npos) return bad("no '='");
  peer_figure peer{std::string(text.substr(0, eq)), 0.0};
  if (peer.name.empty()) return bad("empty name");
  const std::string_view number = text.substr(eq + 1);
  const char* end = number.data() + number.size();
  const auto [ptr, ec] = std::from_chars(number.data(), end, peer.output_tokens_per_s);
  if (number.empty() || ec != std::errc() || ptr != end) return bad("not a number");
  if (!std::isfinite(peer.output_tokens_per_s) || !(peer.output_tokens_per_s > 0.0)) {
    return bad("tokens/s must be a finite number above 0");
  }
  return peer;
}

double ratio(double a, double b) { return b > 0.0 ? a / b : 0.0; }

offline_figures engine_figures(double wall_s, const engine_stats& s,
                               const std::vector<workload_request>& reqs) {
  offline_figures f;
  f.num_requests = reqs.size();
  for (const workload_request& r : reqs) {
    f.prompt_tokens += r.prompt_token_ids.size();
    f.output_tokens += r.max_tokens;
  }
  const auto steps = static_cast<double>(s.num_steps);
  f.wall_s = wall_s;
  f.output_tokens_per_s = ratio(static_cast<double>(f.output_tokens), wall_s);
  f.total_tokens_per_s = ratio(static_cast<double>(f.prompt_tokens + f.output_tokens), wall_s);
  f.mean_batch_size = ratio(s.sum_batch_size, steps);
  f.kv_utilization = ratio(s.kv_utilization_sum, steps);
  f.executor_idle_fraction = ratio(s.executor_idle_s, s.executor_idle_s + s.executor_busy_s);
  f.prefix_cache_hit_rate =
      ratio(static_cast<double>(s.prefix_cache_hits), static_cast<double>(s.prefix_cache_queries));
  f.host_ms_per_step = ratio(s.executor_host_s * 1e3, steps);
  if (s.device_idle_s + s.device_busy_s > 0.0) {
    f.device_ms_per_step = ratio(s.device_busy_s * 1e3, steps);
    f.device_idle_fraction = s.device_idle_s / (s.device_idle_s + s.device_busy_s);
  }
  return f;
}

boost::json::object to_json(const offline_figures& f, const engine_stats& s,
                            std::uint64_t num_leaked_blocks) {
  return {{"num_requests", f.num_requests},
          {"completed", s.num_finished()},
          {"prompt_tokens", f.prompt_tokens},
          {"output_tokens", f.output_tokens},
          {"wall_s", f.wall_s},
          {"output_tokens_per_s", f.output_tokens_per_s},
          {"total_tokens_per_s", f.total_tokens_per_s},
          {"steps", s.num_steps},
          {"mean_batch_size", f.mean_batch_size},
          {"num_preemptions", s.num_preemptions},
          {"kv_utilization", f.kv_utilization},
          {"executor_idle_fraction", f.executor_idle_fraction},
          {"prefix_cache_hit_rate", f.prefix_cache_hit_rate},
          {"host_ms_per_step", f.host_ms_per_step},
          {"device_ms_per_step", optional_json(f.device_ms_per_step)},
          {"device_idle_s", s.device_idle_s},
          {"device_busy_s", s.device_busy_s},
          {"device_idle_fraction", optional_json(f.device_idle_fraction)},
          {"graph_steps", s.num_graph_steps},
          {"spec_decode_num_drafts", s.spec_decode_num_drafts},
          {"spec_decode_num_draft_tokens", s.spec_decode_num_draft_tokens},
          {"spec_decode_num_accepted_tokens", s.spec_decode_num_accepted_tokens},
          {"leaked_blocks", num_leaked_blocks}};
}

boost::json::array to_json(const std::vector<peer_figure>& peers, const offline_figures& f) {
  boost::json::array out;
  for (const peer_figure& p : peers) {
    out.push_back(
        boost::json::object{{"name", p.name},
                            {"output_tokens_per_s", p.output_tokens_per_s},
                            {"ratio", ratio(f.output_tokens_per_s, p.output_tokens_per_s)}});
  }
  return out;
}

boost::json::object to_json(const static_baseline_report& r) {
  return {{"wall_s", r.wall_s},
          {"batch_size", r.batch_size},
          {"num_batches", r.num_batches},
          {"steps", r.steps},
          {"useful_output_tokens", r.useful_output_tokens},
          {"computed_tokens", r.computed_tokens},
          {"output_tokens_per_s", r.output_tokens_per_s}};
}

void print_table(const boost::json::object& config, const offline_figures& f, const engine_stats& s,
                 const std::vector<peer_figure>& peers,
                 const std::optional<static_baseline_report>& fixed) {
  std::printf(
      "model %s on %s (dtype %s), %llu requests, %llu prompt + %llu output tokens, "
      "%llu KV blocks of %llu\n",
      config.at("model").as_string().c_str(), config.at("backend").as_string().c_str(),
      config.at("dtype").as_string().c_str(), ull(f.num_requests), ull(f.prompt_tokens),
      ull(f.output_tokens), ull(config.at("num_blocks").to_number<std::uint64_t>()),
      ull(config.at("block_size").to_number<std::uint64_t>()));
  std::printf("%-28s %12.3f\n", "wall time (s)", f.wall_s);
  std::printf("%-28s %12.1f\n", "output tokens/s", f.output_tokens_per_s);
  for (const peer_figure& p : peers) {
    std::printf("%-28s %12.1f   measured / peer %.4f\n", ("  peer " + p.name).c_str(),
                p.output_tokens_per_s, ratio(f.output_tokens_per_s, p.output_tokens_per_s));
  }
  std::printf("%-28s %12.1f\n", "total tokens/s", f.total_tokens_per_s);
  std::printf("%-28s %12llu\n", "steps", ull(s.num_steps));
  std::printf("%-28s %12.2f\n", "mean batch size", f.mean_batch_size);
  std::printf("%-28s %12llu\n", "preemptions", ull(s.num_preemptions));
  std::printf("%-28s %12.4f\n", "KV utilization", f.kv_utilization);
  std::printf("%-28s %12.4f\n", "executor idle fraction", f.executor_idle_fraction);
  std::printf("%-28s %12.3f\n", "host ms/step", f.host_ms_per_step);
  print_row("device ms/step", f.device_ms_per_step, 3);
  std::printf("%-28s %12.3f\n", "device idle (s)", s.device_idle_s);
  std::printf("%-28s %12.3f\n", "device busy (s)", s.device_busy_s);
  print_row("device idle fraction", f.device_idle_fraction, 4);
  std::printf("%-28s %12llu\n", "graph steps", ull(s.num_graph_steps));
  if (s.spec_decode_num_draft_tokens > 0) {
    std::printf("%-28s %12llu of %llu (%.3f)\n", "speculative tokens accepted",
                ull(s.spec_decode_num_accepted_tokens), ull(s.spec_decode_num_draft_tokens),
                static_cast<double>(s.spec_decode_num_accepted_tokens) /
                    static_cast<double>(s.spec_decode_num_draft_tokens));
  }
  if (fixed) print_static(f, *fixed);
}

}  // namespace pagedserve::cli
