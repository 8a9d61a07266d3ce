#include "sim/static_batch_baseline.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

#include "kernels/cpu/cpu_backend.h"
#include "runtime/forward/model_forward.h"
#include "runtime/forward/paged_kv_cache.h"
#include "runtime/model/checkpoint.h"
#include "runtime/sampling/sampler.h"

namespace pagedserve::sim {
namespace {

using clock_type = std::chrono::steady_clock;

struct request_extent {
  std::uint64_t longest_prompt = 0;
  std::uint64_t longest_output = 0;
};

request_extent extent_of(std::span<const workload_request> requests) {
  request_extent e;
  for (const workload_request& r : requests) {
    e.longest_prompt = std::max<std::uint64_t>(e.longest_prompt, r.prompt_token_ids.size());
    e.longest_output = std::max<std::uint64_t>(e.longest_output, r.max_tokens);
  }
  return e;
}

error bad_request(std::size_t index, const std::string& what) {
  return make_error(error_code::invalid_argument,
                    "static baseline: request " + std::to_string(index) + ": " + what);
}

status check_workload(const model_config& model, std::span<const workload_request> workload) {
  if (workload.empty())
    return make_error(error_code::invalid_argument, "static baseline: empty workload");
  for (std::size_t i = 0; i < workload.size(); ++i) {
    const workload_request& r = workload[i];
    if (r.prompt_token_ids.empty()) return bad_request(i, "empty prompt");
    if (r.max_tokens == 0) return bad_request(i, "max_tokens is 0");
    for (token_id id : r.prompt_token_ids) {
      if (id < 0 || id >= model.vocab_size) {
        return bad_request(i, "token id " + std::to_string(id) + " is outside the vocabulary [0, " +
                                  std::to_string(model.vocab_size) + ")");
      }
    }
  }
  return status::success();
}

// Runs batches on one model and one cache. Sequence i of a batch owns the blocks
// [i * blocks_per_seq_, (i + 1) * blocks_per_seq_): its static reservation.
class batch_runner {
 public:
  batch_runner(forward::model_forward& fwd, std::uint32_t batch_size, std::int64_t blocks_per_seq,
               std::int64_t block_size)
      : fwd_(fwd),
        blocks_per_seq_(blocks_per_seq),
        cache_(fwd.backend(), forward::kv_cache_layout::for_model(
                                  fwd.config(), blocks_per_seq * batch_size, block_size)) {
    const auto num_blocks = static_cast<std::uint32_t>(blocks_per_seq * batch_size);
    for (std::uint32_t b = 0; b < num_blocks; ++b) blocks_.emplace_back(b);
  }

  // Runs one batch; its requests are the last batch.size() entries of
  // report.output_token_ids, which receive their tokens.
  void run(std::span<const workload_request> batch, static_baseline_report& report) {
    const request_extent e = extent_of(batch);
    const auto num_prompt = static_cast<std::int64_t>(e.longest_prompt);
    std::vector<std::vector<token_id>> prompts;
    for (const workload_request& r : batch) prompts.push_back(left_padded(r, e.longest_prompt));

    forward::forward_batch step;
    for (std::size_t i = 0; i < batch.size(); ++i)
      step.sequences.push_back({prompts[i], 0, table(i)});
    std::vector<token_id> next = sample_all(fwd_.run(step, cache_));
    record(batch, next, report);
    report.computed_tokens += batch.size() * e.longest_prompt;
    for (std::uint64_t t = 1; t < e.longest_output; ++t) {
      step.sequences.clear();
      for (std::size_t i = 0; i < batch.size(); ++i) {
        const auto position = num_prompt + static_cast<std::int64_t>(t) - 1;
        step.sequences.push_back({std::span<const token_id>(&next[i], 1), position, table(i)});
      }
      next = sample_all(fwd_.run(step, cache_));
      record(batch, next, report);
      report.computed_tokens += batch.size();
    }
    report.steps += e.longest_output;
  }

 private:
  static std::vector<token_id> left_padded(const workload_request& r, std::uint64_t length) {
    std::vector<token_id> tokens(length - r.prompt_token_ids.size(), token_id{0});
    tokens.insert(tokens.end(), r.prompt_token_ids.begin(), r.prompt_token_ids.end());
    return tokens;
  }

  [[nodiscard]] std::span<const block_id> table(std::size_t i) const {
    const auto n = static_cast<std::size_t>(blocks_per_seq_);
    return std::span<const block_id>(blocks_).subspan(i * n, n);
  }

  static std::vector<token_id> sample_all(const forward::forward_output& out) {
    std::vector<token_id> tokens;
    const std::size_t num_seqs = out.last_logits.size() / static_cast<std::size_t>(out.vocab_size);
    for (std::size_t i = 0; i < num_seqs; ++i) tokens.push_back(greedy_sample(out.last(i)));
    return tokens;
  }

  // Keeps each request's first max_tokens tokens; the batch's longer decode is waste.
  static void record(std::span<const workload_request> batch, std::span<const token_id> next,
                     static_baseline_report& report) {
    const std::size_t first = report.output_token_ids.size() - batch.size();
    for (std::size_t i = 0; i < batch.size(); ++i) {
      std::vector<token_id>& out = report.output_token_ids[first + i];
      if (out.size() < batch[i].max_tokens) out.push_back(next[i]);
    }
  }

  forward::model_forward& fwd_;
  std::int64_t blocks_per_seq_;
  forward::paged_kv_cache cache_;
  std::vector<block_id> blocks_;
};

}  // namespace

std::uint32_t static_batch_size(std::uint32_t max_num_seqs, std::uint64_t kv_slots,
                                std::span<const workload_request> workload) {
  const request_extent e = extent_of(workload);
  const std::uint64_t per_seq = e.longest_prompt + e.longest_output;
  if (per_seq == 0) return 0;
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(max_num_seqs, kv_slots / per_seq));
}

result<static_baseline_report> run_static_baseline(const static_baseline_config& config,
                                                   std::span<const workload_request> workload) {
  if (config.weights == nullptr)
    return make_error(error_code::invalid_argument, "static baseline: no weights");
  if (config.block_size == 0)
    return make_error(error_code::invalid_argument, "static baseline: block_size 0");
  if (const status s = check_workload(config.model, workload); !s) return s.err();
  const std::uint32_t batch_size =
      static_batch_size(config.max_num_seqs, config.kv_slots, workload);
  const request_extent e = extent_of(workload);
  if (batch_size == 0) {
    return make_error(error_code::capacity_exceeded,
                      "static baseline: one reservation of " +
                          std::to_string(e.longest_prompt + e.longest_output) +
                          " tokens (longest prompt + largest max_tokens) does not fit in " +
                          std::to_string(config.kv_slots) + " KV slots");
  }
  auto backend = kernels::make_cpu_backend();
  auto weights = forward::upload_model_weights(*backend, config.model, *config.weights);
  if (!weights) return weights.err();
  forward::model_forward fwd(*backend, config.model, std::move(*weights));
  const std::int64_t block_size = config.block_size;
  const auto reserved = static_cast<std::int64_t>(e.longest_prompt + e.longest_output);
  batch_runner runner(fwd, batch_size, (reserved + block_size - 1) / block_size, block_size);

  static_baseline_report report;
  report.batch_size = batch_size;
  const auto start = clock_type::now();
  for (std::size_t first = 0; first < workload.size(); first += batch_size) {
    const auto batch =
        workload.subspan(first, std::min<std::size_t>(batch_size, workload.size() - first));
    report.output_token_ids.resize(first + batch.size());
    runner.run(batch, report);
    ++report.num_batches;
  }
  report.wall_s = std::chrono::duration<double>(clock_type::now() - start).count();
  for (const workload_request& r : workload) report.useful_output_tokens += r.max_tokens;
  if (report.wall_s > 0.0) {
    report.output_tokens_per_s = static_cast<double>(report.useful_output_tokens) / report.wall_s;
  }
  return report;
}

}  // namespace pagedserve::sim
