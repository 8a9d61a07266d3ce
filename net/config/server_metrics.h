#pragma once
// server_metrics: what /metrics reports, in Prometheus text format (version 0.0.4). Request
// latencies are measured by the server as its clients see them (arrival of the HTTP request
// or WebSocket message to tokens leaving); engine figures come from engine_stats.
// Thread-safe: sessions on any io thread observe, /metrics renders.

#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <string_view>

#include "api/engine_stats.h"
#include "api/replica_info.h"
#include "common/histogram.h"

namespace pagedserve::net {

class server_metrics {
 public:
  server_metrics();

  void observe_time_to_first_token(double seconds);
  void observe_inter_token_latency(double seconds);  // every gap between streamed tokens
  void observe_e2e_latency(double seconds);
  void observe_queue_time(double seconds);  // request_final::queue_time_s
  void count_http_response(unsigned status);
  // How the served model is stored, rendered as the labels of model_info (set once at start).
  void set_model_info(std::string quantization, std::string kv_cache_dtype);

  // The metric families listed in docs/metrics.md, each with # HELP and # TYPE, labelled
  // model_name="<served name>"; passes `promtool check metrics`.
  // With replicas (a router): the same figures per replica as pagedserve:replica_* families
  // labelled replica="<name>", plus replica_up and replica_routed_requests_total; the
  // families above stay the sums.
  [[nodiscard]] std::string render(const engine_stats& stats, std::string_view model_name,
                                   std::span<const replica_info> replicas = {}) const;

 private:
  mutable std::mutex mutex_;
  histogram ttft_;
  histogram itl_;
  histogram e2e_;
  histogram queue_;
  std::uint64_t num_responses_2xx_ = 0;
  std::uint64_t num_responses_4xx_ = 0;
  std::uint64_t num_responses_5xx_ = 0;
  std::string quantization_ = "none";
  std::string kv_cache_dtype_ = "auto";
};

}  // namespace pagedserve::net
