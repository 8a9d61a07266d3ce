#pragma once
// lifecycle_driver: engine_core driven by hand for the lifecycle tests, with the fake
// executor (sim/fake_executor.h) as the model. One step at a time (plan, apply) when a test
// needs exact figures, two steps in flight as the scheduler actor runs it otherwise; every
// sink's events are kept in order.

#include <gtest/gtest.h>

#include <deque>
#include <initializer_list>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "runtime/engine/engine_core.h"
#include "sim/fake_executor.h"
#include "tests/runtime/engine/engine_core_driver.h"

namespace pagedserve::lifecycle_test {

using engine_testing::core_type;
using engine_testing::prompt_of;
using engine_testing::sink_id;

// block_size 4; no chunk limit, so every prompt here is one prefill step.
inline engine_core_setup setup_with(std::uint32_t num_blocks) {
  engine_plan plan;
  plan.sched.block_size = 4;
  plan.sched.num_blocks = num_blocks;
  plan.sched.max_model_len = 128;
  plan.sched.max_num_seqs = 8;
  plan.sched.max_num_batched_tokens = 64;
  engine_core_setup setup;
  plan.max_waiting_requests = 64;
  setup.plan = std::make_shared<const engine_plan>(plan);
  setup.vocab_size = 32000;
  return setup;
}

inline generation_request request_of(std::vector<token_id> prompt, std::uint32_t max_tokens,
                                     bool report_lifecycle = true) {
  generation_request r;
  r.prompt_token_ids = std::move(prompt);
  r.sampling.max_tokens = max_tokens;
  r.sampling.temperature = 0.0f;
  r.report_lifecycle = report_lifecycle;
  return r;
}

struct driver : engine_testing::core_driver {
  using core_driver::core_driver;

  // One step at a time: plan, apply (no overlap), so a preemption is exactly predictable.
  void run_one_step_at_a_time() {
    for (int i = 0; i < 10000 && core.has_work(); ++i) {
      ASSERT_TRUE(plan_one());
      apply_one();
    }
    ASSERT_FALSE(core.has_work());
  }
  // As the scheduler actor: two steps in flight whenever possible.
  void run_overlapped() {
    for (int i = 0; i < 100000 && core.has_work(); ++i) {
      if (!plan_one()) apply_one();
    }
    ASSERT_FALSE(core.has_work());
  }
  // "queued", ..., "chunk" or "final": what `sink` received for completion `index`.
  std::vector<std::string> kinds(sink_id sink, std::uint32_t index = 0) const {
    std::vector<std::string> out;
    for (const engine_event& e : received.at(sink)) {
      if (const auto* c = std::get_if<token_chunk>(&e); c && c->index == index) {
        out.emplace_back("chunk");
      } else if (const auto* f = std::get_if<request_final>(&e); f && f->index == index) {
        out.emplace_back("final");
      } else if (const auto* l = std::get_if<request_lifecycle>(&e); l && l->index == index) {
        out.emplace_back(to_string(l->stage));
      }
    }
    return out;
  }
  std::vector<request_lifecycle> lifecycle(sink_id sink, std::uint32_t index = 0) const {
    std::vector<request_lifecycle> out;
    for (const engine_event& e : received.at(sink)) {
      const auto* l = std::get_if<request_lifecycle>(&e);
      if (l != nullptr && l->index == index) out.push_back(*l);
    }
    return out;
  }
  const request_lifecycle& first(sink_id sink, lifecycle_stage stage, std::uint32_t index = 0) {
    for (const engine_event& e : received.at(sink)) {
      const auto* l = std::get_if<request_lifecycle>(&e);
      if (l != nullptr && l->index == index && l->stage == stage) return *l;
    }
    ADD_FAILURE() << "no " << to_string(stage) << " event for sink " << sink;
    static const request_lifecycle none;
    return none;
  }
  request_final final_of(sink_id sink, std::uint32_t index = 0) const {
    for (const engine_event& e : received.at(sink)) {
      const auto* f = std::get_if<request_final>(&e);
      if (f != nullptr && f->index == index) return *f;
    }
    return {};
  }
};

inline std::vector<std::string> chunks(std::size_t n) {
  return std::vector<std::string>(n, "chunk");
}

inline std::vector<std::string> concat(std::initializer_list<std::vector<std::string>> parts) {
  std::vector<std::string> out;
  for (const auto& part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

}  // namespace pagedserve::lifecycle_test
