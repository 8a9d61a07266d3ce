// server_metrics: counters and latency histograms kept by the server, rendered together with
// the engine's figures as Prometheus text format 0.0.4. Names follow vLLM's (vllm:X is
// pagedserve:X) so dashboards built for vLLM read ours; docs/metrics.md lists them.

#include "net/config/server_metrics.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "common/config_value.h"
#include "net/config/metrics_exposition.h"
#include "net/config/moe_metrics.h"

namespace pagedserve::net {

server_metrics::server_metrics()
    : ttft_(histogram::with_bounds(latency_buckets_s())),
      itl_(histogram::with_bounds(inter_token_buckets_s())),
      e2e_(histogram::with_bounds(latency_buckets_s())),
      queue_(histogram::with_bounds(latency_buckets_s())) {}

void server_metrics::observe_time_to_first_token(double seconds) {
  std::lock_guard lock(mutex_);
  ttft_.observe(seconds);
}

void server_metrics::observe_inter_token_latency(double seconds) {
  std::lock_guard lock(mutex_);
  itl_.observe(seconds);
}

void server_metrics::observe_e2e_latency(double seconds) {
  std::lock_guard lock(mutex_);
  e2e_.observe(seconds);
}

void server_metrics::observe_queue_time(double seconds) {
  std::lock_guard lock(mutex_);
  queue_.observe(seconds);
}

// 1xx (WebSocket upgrades) and 3xx are not counted: the server sends no other kinds.
void server_metrics::count_http_response(unsigned status) {
  std::lock_guard lock(mutex_);
  if (status >= 200 && status < 300) {
    ++num_responses_2xx_;
  } else if (status >= 400 && status < 500) {
    ++num_responses_4xx_;
  } else if (status >= 500 && status < 600) {
    ++num_responses_5xx_;
  }
}

void server_metrics::set_model_info(std::string quantization, std::string kv_cache_dtype) {
  std::lock_guard lock(mutex_);
  quantization_ = std::move(quantization);
  kv_cache_dtype_ = std::move(kv_cache_dtype);
}

namespace {

// vLLM's spec_decode families; only when speculative decoding has verified something.
void render_spec_decode(exposition& out, const engine_stats& stats) {
  if (stats.spec_decode_num_drafts == 0) return;
  out.counter("spec_decode_num_drafts_total", "Verified runs that had proposed tokens.",
              stats.spec_decode_num_drafts);
  out.counter("spec_decode_num_draft_tokens_total", "Proposed tokens verified.",
              stats.spec_decode_num_draft_tokens);
  out.counter("spec_decode_num_accepted_tokens_total", "Proposed tokens accepted.",
              stats.spec_decode_num_accepted_tokens);
  out.family("spec_decode_num_accepted_tokens_per_pos_total", "counter",
             "Runs whose proposed token at this position (0: the first) was accepted.");
  const std::vector<std::uint64_t>& per_pos = stats.spec_decode_accepted_per_pos;
  for (std::size_t pos = 0; pos < per_pos.size(); ++pos) {
    out.sample("spec_decode_num_accepted_tokens_per_pos_total",
               "position=\"" + std::to_string(pos) + "\"", std::to_string(per_pos[pos]));
  }
}

// Per replica (a router's): one family per figure, one sample per replica.
void render_replicas(exposition& out, std::span<const replica_info> replicas) {
  if (replicas.empty()) return;
  const auto each = [&](std::string_view name, std::string_view type, std::string_view help,
                        auto value_of) {
    out.family(name, type, help);
    for (const replica_info& r : replicas)
      out.sample(name, "replica=\"" + escape_label(r.name) + "\"", value_of(r));
  };
  const auto number = [](auto v) { return config_value::format_double(static_cast<double>(v)); };
  each("replica_up", "gauge", "1 while the router reaches the replica, else 0.",
       [](const replica_info& r) { return std::string(r.up ? "1" : "0"); });
  each("replica_routed_requests_total", "counter", "Requests routed to the replica.",
       [](const replica_info& r) { return std::to_string(r.num_routed); });
  each("replica_num_requests_running", "gauge", "Requests in the replica's running batch.",
       [&](const replica_info& r) { return number(r.stats.num_running); });
  each("replica_num_requests_waiting", "gauge", "Requests waiting at the replica.",
       [&](const replica_info& r) { return number(r.stats.num_waiting); });
  each("replica_kv_cache_usage_perc", "gauge", "Fraction of the replica's KV cache blocks in use.",
       [&](const replica_info& r) { return number(r.stats.kv_usage); });
  each("replica_prefix_cache_queries_total", "counter",
       "Prompt tokens looked up in the replica's prefix cache.",
       [](const replica_info& r) { return std::to_string(r.stats.prefix_cache_queries); });
  each("replica_prefix_cache_hits_total", "counter",
       "Prompt tokens found in the replica's prefix cache.",
       [](const replica_info& r) { return std::to_string(r.stats.prefix_cache_hits); });
}

}  // namespace

std::string server_metrics::render(const engine_stats& stats, std::string_view model_name,
                                   std::span<const replica_info> replicas) const {
  std::lock_guard lock(mutex_);
  exposition out(model_name);
  // vLLM's *_info convention (cache_config_info): the facts are labels, the value is 1.
  out.family("model_info", "gauge", "How the served model's weights and KV cache are stored.");
  out.sample("model_info",
             "quantization=\"" + escape_label(quantization_) + "\",kv_cache_dtype=\"" +
                 escape_label(kv_cache_dtype_) + "\"",
             "1");
  out.gauge("num_requests_running", "Requests in the running batch.", stats.num_running);
  out.gauge("num_requests_waiting", "Requests waiting to be scheduled.", stats.num_waiting);
  out.gauge("kv_cache_usage_perc", "Fraction of KV cache blocks in use (0 to 1).", stats.kv_usage);
  out.counter("prefix_cache_queries_total", "Prompt tokens looked up in the prefix cache.",
              stats.prefix_cache_queries);
  out.counter("prefix_cache_hits_total", "Prompt tokens found in the prefix cache.",
              stats.prefix_cache_hits);
  out.counter("num_preemptions_total", "Sequences preempted (their KV blocks freed).",
              stats.num_preemptions);
  out.counter("prompt_tokens_total", "Prompt tokens prefilled.", stats.num_prompt_tokens);
  out.counter("generation_tokens_total", "Tokens generated.", stats.num_generation_tokens);

  out.family("request_success_total", "counter",
             "Finished completions by finish reason (a request with n > 1 counts n).");
  const std::array<std::pair<const char*, std::uint64_t>, 4> finished = {
      {{"stop", stats.num_finished_stop},
       {"length", stats.num_finished_length},
       {"abort", stats.num_cancelled},
       {"error", stats.num_failed}}};
  for (const auto& [reason, n] : finished) {
    out.sample("request_success_total", "finished_reason=\"" + std::string(reason) + "\"",
               std::to_string(n));
  }
  out.family("http_responses_total", "counter", "HTTP responses by status class.");
  const std::array<std::pair<const char*, std::uint64_t>, 3> responses = {
      {{"2xx", num_responses_2xx_}, {"4xx", num_responses_4xx_}, {"5xx", num_responses_5xx_}}};
  for (const auto& [code, n] : responses) {
    out.sample("http_responses_total", "code=\"" + std::string(code) + "\"", std::to_string(n));
  }

  out.histogram_family("time_to_first_token_seconds",
                       "Time from request arrival to its first token leaving.", ttft_);
  out.histogram_family("inter_token_latency_seconds", "Time between tokens sent to a client.",
                       itl_);
  out.histogram_family("e2e_request_latency_seconds",
                       "Time from request arrival to its last token leaving.", e2e_);
  out.histogram_family("request_queue_time_seconds", "Time a request waited before its first step.",
                       queue_);
  out.histogram_family("iteration_tokens_total", "Tokens (prompt + generated) per engine step.",
                       stats.iteration_tokens);
  render_expert_load(out, stats);
  render_spec_decode(out, stats);
  render_replicas(out, replicas);
  return std::move(out).take();
}

}  // namespace pagedserve::net
