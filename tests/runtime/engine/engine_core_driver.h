#pragma once
// core_driver: engine_core driven by hand with the fake executor (sim/fake_executor.h) as
// the model, as the scheduler actor drives it: plan a step (up to two in flight), apply the
// oldest output, fail it, cancel; every sink's outputs are kept in order. The engine_core
// and lifecycle tests add their own ways of running and reading it.

#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "runtime/engine/engine_core.h"
#include "sim/fake_executor.h"

namespace pagedserve::engine_testing {

using sink_id = int;
using core_type = engine_core<sink_id>;

inline std::vector<token_id> prompt_of(std::size_t n, token_id first) {
  std::vector<token_id> p(n);
  for (std::size_t i = 0; i < n; ++i) p[i] = first + static_cast<token_id>(i);
  return p;
}

struct core_driver {
  explicit core_driver(engine_core_setup setup)
      : core(std::move(setup)), executor(core.scheduler().config().block_size) {}

  result<request_id> submit(generation_request r, sink_id sink) {
    return core.add(std::move(r), sink, now);
  }
  bool plan_one() {
    step_message msg;
    if (!core.plan_step(now, msg)) return false;
    planned.push_back(msg.plan.step);
    if (!msg.plan.empty()) batched_tokens.push_back(msg.plan.num_batched_tokens);
    outputs.push_back(executor.run(msg.plan));
    if (on_output) on_output(outputs.back());
    return true;
  }
  void apply_one() {
    now += 0.01;
    core_type::sends out;
    core.apply_output(outputs.front(), now, out);
    outputs.pop_front();
    planned.pop_front();
    deliver(out);
  }
  void fail_oldest(const std::string& why = "injected") {
    core_type::sends out;
    core.fail_step(planned.front(), why, now, out);
    outputs.pop_front();
    planned.pop_front();
    deliver(out);
  }
  void cancel(request_id id) {
    core_type::sends out;
    core.cancel(id, now, out);
    deliver(out);
  }
  void deliver(core_type::sends& out) {
    for (auto& o : out) received[o.sink].push_back(std::move(o.event));
  }

  core_type core;
  sim::fake_executor executor;
  // Called with each step's output as the executor made it (e.g. to attach logprobs).
  std::function<void(sched::step_output&)> on_output;
  std::deque<sched::step_output> outputs;
  std::deque<std::uint64_t> planned;
  std::vector<std::uint32_t> batched_tokens;  // of every non-empty plan
  std::map<sink_id, std::vector<engine_event>> received;
  double now = 0.0;
};

}  // namespace pagedserve::engine_testing
