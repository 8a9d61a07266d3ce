#include "sim/simulator.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <variant>

#include "runtime/sched/scheduler.h"
#include "sim/fake_executor.h"
#include "sim/static_reservation.h"

namespace pagedserve::sim {

namespace {

using sched::event_stamp;
using sched::first_token;
using sched::request_finished;
using sched::request_spec;
using sched::scheduler;
using sched::scheduler_event;
using sched::step_output;
using sched::step_plan;
using sched::step_stats;

struct arrival {
  double time = 0.0;
  std::size_t index = 0;
};

// Poisson arrivals from a seeded generator (mt19937_64's output is fixed by the standard;
// the exponential gap is computed here so it does not depend on the library's distribution).
std::vector<arrival> arrival_times(const simulation_config& config,
                                   std::span<const workload_request> workload) {
  std::vector<arrival> arrivals(workload.size());
  std::mt19937_64 rng(config.seed);
  double t = 0.0;
  for (std::size_t i = 0; i < workload.size(); ++i) {
    if (config.arrival_rate) {
      const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;  // [0, 1)
      t += -std::log1p(-u) / *config.arrival_rate;
      arrivals[i] = {t, i};
    } else {
      arrivals[i] = {workload[i].arrival_s.value_or(0.0), i};
    }
  }
  std::stable_sort(arrivals.begin(), arrivals.end(),
                   [](const arrival& a, const arrival& b) { return a.time < b.time; });
  return arrivals;
}

// Accumulates the per-step and per-request figures of one run.
class report_builder {
 public:
  report_builder(std::size_t num_requests, bool record_outputs)
      : arrival_s_(num_requests, 0.0), record_outputs_(record_outputs) {
    if (record_outputs_) report_.outputs.resize(num_requests);
  }

  simulation_report& report() { return report_; }
  void set_arrival(std::size_t index, double time) { arrival_s_[index] = time; }

  void on_step(const step_plan& plan, const step_output& output) {
    const step_stats& stats = plan.stats;
    ++report_.steps;
    report_.peak_running = std::max(report_.peak_running, stats.num_running);
    sum_running_ += stats.num_running;
    sum_kv_usage_ += stats.kv_usage;
    report_.peak_kv_usage = std::max(report_.peak_kv_usage, stats.kv_usage);
    if (stats.num_kv_slots_allocated > 0) {
      sum_utilization_ += static_cast<double>(stats.num_kv_tokens_held) /
                          static_cast<double>(stats.num_kv_slots_allocated);
      ++num_utilization_steps_;
    }
    report_.prefix_queries += stats.prefix_queries;
    report_.prefix_hits += stats.prefix_hits;
    report_.output_tokens += output.sampled.size();
    if (!record_outputs_) return;
    for (std::size_t i = 0, k = 0; i < plan.scheduled.size(); ++i) {
      if (!plan.scheduled[i].samples) continue;
      report_.outputs[plan.scheduled[i].seq.value()].push_back(output.sampled[k++].token);
    }
  }

  void on_event(const scheduler_event& event) {
    const event_stamp& at = stamp_of(event);
    const double since_arrival = at.time - arrival_s_[at.seq.value()];
    if (std::holds_alternative<first_token>(event)) {
      sum_ttft_s_ += since_arrival;
    } else if (const auto* done = std::get_if<request_finished>(&event)) {
      sum_e2e_s_ += since_arrival;
      report_.completed += done->reason != finish_reason::cancelled ? 1 : 0;
    }
  }

  simulation_report finish(const scheduler& sched, double now) {
    const double steps = std::max<double>(1.0, static_cast<double>(report_.steps));
    const double completed = std::max<double>(1.0, static_cast<double>(report_.completed));
    report_.num_preemptions = sched.totals().num_preemptions;
    report_.mean_running = sum_running_ / steps;
    report_.mean_kv_usage = sum_kv_usage_ / steps;
    if (num_utilization_steps_ > 0)
      report_.kv_utilization = sum_utilization_ / num_utilization_steps_;
    if (report_.prefix_queries > 0) {
      report_.prefix_cache_hit_rate =
          static_cast<double>(report_.prefix_hits) / static_cast<double>(report_.prefix_queries);
    }
    report_.leaked_blocks = sched.kv().num_blocks_held();
    report_.prefill_tokens_computed = sched.totals().num_prefill_tokens;
    report_.decode_tokens_computed = sched.totals().num_decode_tokens;
    report_.simulated_time_s = now;
    if (now > 0) report_.output_tokens_per_s = static_cast<double>(report_.output_tokens) / now;
    report_.mean_ttft_s = sum_ttft_s_ / completed;
    report_.mean_e2e_s = sum_e2e_s_ / completed;
    return std::move(report_);
  }

 private:
  simulation_report report_;
  std::vector<double> arrival_s_;
  bool record_outputs_ = false;
  double sum_running_ = 0.0;
  double sum_kv_usage_ = 0.0;
  double sum_utilization_ = 0.0;
  std::uint64_t num_utilization_steps_ = 0;
  double sum_ttft_s_ = 0.0;
  double sum_e2e_s_ = 0.0;
};

request_spec spec_for(const workload_request& request, std::size_t index, double arrival_time) {
  request_spec spec;
  spec.id = seq_id{index};
  spec.prompt_token_ids = request.prompt_token_ids;
  spec.max_tokens = request.max_tokens;
  spec.priority = request.priority;
  spec.arrival_time = arrival_time;
  return spec;
}

}  // namespace

result<simulation_report> simulate(const simulation_config& config,
                                   std::span<const workload_request> workload) {
  if (const status valid = validate(config.sched); !valid) return valid.err();
  const bool paged = config.allocator == allocator_kind::paged;
  const static_baseline pool =
      paged ? static_baseline{config.sched, sched::kv_cache_config_of(config.sched)}
            : static_reservation(config.sched);
  scheduler sched(pool.sched, pool.kv);
  fake_executor executor(config.sched.block_size);
  report_builder builder(workload.size(), config.record_outputs);
  builder.report().allocator = paged ? "paged" : "static";
  const std::vector<arrival> arrivals = arrival_times(config, workload);

  double now = 0.0;
  std::size_t next = 0;
  while (true) {
    for (; next < arrivals.size() && arrivals[next].time <= now; ++next) {
      const arrival& a = arrivals[next];
      builder.set_arrival(a.index, a.time);
      if (!sched.add_request(spec_for(workload[a.index], a.index, a.time), now)) {
        ++builder.report().rejected;
      }
    }
    if (!sched.has_unfinished()) {
      if (next == arrivals.size()) break;
      now = arrivals[next].time;  // idle until the next arrival
      continue;
    }
    if (builder.report().steps >= config.max_steps) {
      return make_error(error_code::internal,
                        "simulation exceeded " + std::to_string(config.max_steps) + " steps");
    }
    const step_plan plan = sched.schedule(now);
    now += config.cost.fixed_s + config.cost.per_token_s * plan.num_batched_tokens +
           config.cost.per_seq_s * static_cast<double>(plan.scheduled.size());
    const step_output output = executor.run(plan);
    sched.update_from_output(output, now);
    builder.on_step(plan, output);
    for (const scheduler_event& event : sched.take_events()) builder.on_event(event);
  }
  builder.report().protocol_errors = executor.num_protocol_errors();
  return builder.finish(sched, now);
}

}  // namespace pagedserve::sim
