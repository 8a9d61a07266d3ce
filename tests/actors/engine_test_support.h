#pragma once
// Helpers for the engine tests (facade and remote): a callback that records one request's
// events and lets the test wait for them with a finite timeout, and an independent greedy
// reference that runs the demo model one sequence at a time straight on model_forward (no
// engine, no scheduler, no batching).

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "actors/engine.h"
#include "kernels/cpu/cpu_backend.h"
#include "runtime/forward/model_forward.h"
#include "runtime/model/checkpoint.h"
#include "runtime/model/demo_model.h"

namespace pagedserve::testing {

inline constexpr auto k_wait = std::chrono::seconds(60);  // generous: CI runs under ASan

// The random demo model (in memory, byte-level tokenizer) with a small KV pool (the default
// pool is sized for 256 long sequences).
inline engine_config demo_engine_config() {
  engine_config config;
  config.model_dir = "demo-random";
  config.sched.max_num_seqs = 8;
  config.sched.max_model_len = 1024;
  return config;
}

inline generation_request greedy_request(std::vector<token_id> prompt, std::uint32_t max_tokens) {
  generation_request req;
  req.prompt_token_ids = std::move(prompt);
  req.sampling.max_tokens = max_tokens;
  req.sampling.ignore_eos = true;
  req.sampling.temperature = 0.0f;
  return req;
}

// Records one request's events (n completions). Thread-safe; outlives the engine's use of
// its callback because the state is shared.
class event_recorder {
 public:
  struct state {
    std::mutex mutex;
    std::condition_variable changed;
    std::uint32_t n = 1;
    std::vector<token_chunk> chunks;
    std::vector<request_final> finals;
    std::vector<engine_event> log;  // every event, in arrival order
    std::uint64_t num_events = 0;
    std::uint64_t num_chunks_after_final = 0;  // per completion index: must stay 0
  };

  explicit event_recorder(std::uint32_t n = 1) : st_(std::make_shared<state>()) { st_->n = n; }

  [[nodiscard]] engine_callback callback() const {
    return [st = st_](const engine_event& ev) {
      const std::lock_guard<std::mutex> lock(st->mutex);
      ++st->num_events;
      st->log.push_back(ev);
      if (const auto* chunk = std::get_if<token_chunk>(&ev)) {
        const bool after_final =
            std::any_of(st->finals.begin(), st->finals.end(),
                        [&](const request_final& f) { return f.index == chunk->index; });
        if (after_final) ++st->num_chunks_after_final;
        st->chunks.push_back(*chunk);
      } else if (const auto* final = std::get_if<request_final>(&ev)) {
        st->finals.push_back(*final);
      }
      st->changed.notify_all();
    };
  }

  // True once every completion has its final (false after the timeout).
  bool wait_for_finals(std::chrono::milliseconds timeout = k_wait) const {
    std::unique_lock<std::mutex> lock(st_->mutex);
    return st_->changed.wait_for(lock, timeout, [&] { return st_->finals.size() >= st_->n; });
  }
  // True once completion 0 has streamed at least `num_tokens` tokens or has ended.
  bool wait_for_tokens(std::size_t num_tokens, std::chrono::milliseconds timeout) const {
    std::unique_lock<std::mutex> lock(st_->mutex);
    return st_->changed.wait_for(lock, timeout, [&] {
      std::size_t num_seen = 0;
      for (const token_chunk& c : st_->chunks) {
        if (c.index == 0) num_seen += c.token_ids.size();
      }
      return num_seen >= num_tokens || !st_->finals.empty();
    });
  }
  bool wait_for_first_chunk(std::chrono::milliseconds timeout = k_wait) const {
    std::unique_lock<std::mutex> lock(st_->mutex);
    return st_->changed.wait_for(lock, timeout,
                                 [&] { return !st_->chunks.empty() || !st_->finals.empty(); });
  }

  [[nodiscard]] std::vector<token_id> tokens(std::uint32_t index = 0) const {
    const std::lock_guard<std::mutex> lock(st_->mutex);
    std::vector<token_id> out;
    for (const token_chunk& c : st_->chunks) {
      if (c.index == index) out.insert(out.end(), c.token_ids.begin(), c.token_ids.end());
    }
    return out;
  }
  [[nodiscard]] std::vector<request_final> finals() const {
    const std::lock_guard<std::mutex> lock(st_->mutex);
    return st_->finals;
  }
  [[nodiscard]] std::vector<token_chunk> chunks() const {
    const std::lock_guard<std::mutex> lock(st_->mutex);
    return st_->chunks;
  }
  [[nodiscard]] std::vector<engine_event> log() const {
    const std::lock_guard<std::mutex> lock(st_->mutex);
    return st_->log;
  }
  // Completion `index`'s events in order: "chunk", "final" or the lifecycle stage.
  [[nodiscard]] std::vector<std::string> kinds(std::uint32_t index = 0) const {
    std::vector<std::string> out;
    for (const engine_event& ev : log()) {
      if (const auto* c = std::get_if<token_chunk>(&ev); c && c->index == index) {
        out.emplace_back("chunk");
      } else if (const auto* f = std::get_if<request_final>(&ev); f && f->index == index) {
        out.emplace_back("final");
      } else if (const auto* l = std::get_if<request_lifecycle>(&ev); l && l->index == index) {
        out.emplace_back(to_string(l->stage));
      }
    }
    return out;
  }
  [[nodiscard]] std::vector<request_lifecycle> lifecycle(std::uint32_t index = 0) const {
    std::vector<request_lifecycle> out;
    for (const engine_event& ev : log()) {
      const auto* l = std::get_if<request_lifecycle>(&ev);
      if (l != nullptr && l->index == index) out.push_back(*l);
    }
    return out;
  }
  [[nodiscard]] std::uint64_t num_events() const {
    const std::lock_guard<std::mutex> lock(st_->mutex);
    return st_->num_events;
  }
  [[nodiscard]] std::uint64_t num_chunks_after_final() const {
    const std::lock_guard<std::mutex> lock(st_->mutex);
    return st_->num_chunks_after_final;
  }

 private:
  std::shared_ptr<state> st_;
};

// Greedy decoding of the demo model (weights seed 0, as the engine's default), one sequence,
// blocks 0, 1, 2, ... in order; ignores EOS.
inline std::vector<token_id> reference_greedy(const std::vector<token_id>& prompt,
                                              std::uint32_t max_tokens) {
  const model_config config = demo_model_config();
  auto backend = kernels::make_cpu_backend();
  auto weights = forward::upload_model_weights(*backend, config, make_dummy_checkpoint(config, 0));
  if (!weights) return {};
  forward::model_forward fwd(*backend, config, std::move(*weights));
  constexpr std::int64_t block_size = 16;
  const auto max_len = static_cast<std::int64_t>(prompt.size() + max_tokens);
  const std::int64_t num_blocks = (max_len + block_size - 1) / block_size;
  forward::paged_kv_cache cache(
      fwd.backend(), forward::kv_cache_layout::for_model(config, num_blocks, block_size));
  std::vector<block_id> table;
  for (std::int64_t b = 0; b < num_blocks; ++b) table.emplace_back(static_cast<std::uint32_t>(b));

  std::vector<token_id> tokens = prompt;
  std::vector<token_id> out;
  std::int64_t num_computed = 0;
  while (out.size() < max_tokens) {
    forward::forward_batch batch;
    batch.sequences.push_back(
        {std::span<const token_id>(tokens).subspan(static_cast<std::size_t>(num_computed)),
         num_computed, table});
    const forward::forward_output logits = fwd.run(batch, cache);
    num_computed = static_cast<std::int64_t>(tokens.size());
    const std::span<const float> row = logits.last(0);
    const auto next = static_cast<token_id>(std::max_element(row.begin(), row.end()) - row.begin());
    out.push_back(next);
    tokens.push_back(next);
  }
  return out;
}

}  // namespace pagedserve::testing
