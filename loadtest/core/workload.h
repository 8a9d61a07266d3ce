#pragma once
// Workloads for a load test: a JSONL file, random lengths, or shared-prefix groups. Every
// generator is deterministic for a given seed (std::mt19937_64 and our own sampling code, so
// results do not depend on the standard library's distributions).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "common/result.h"
#include "loadtest/core/bench_request.h"

namespace pagedserve::loadtest {

// Token ids of generated prompts are drawn uniformly from [first, last).
struct token_id_range {
  token_id first = 0;
  token_id last = 10000;
};

// vLLM's "random" dataset: input and output lengths uniform in
// [len * (1 - range_ratio), len * (1 + range_ratio)] (at least 1), plus an optional random
// prefix of prefix_len tokens that every request shares.
struct random_workload_spec {
  std::size_t num_requests = 100;
  std::uint32_t input_len = 1024;
  std::uint32_t output_len = 128;
  double range_ratio = 0.0;  // in [0, 1)
  std::uint32_t prefix_len = 0;
  token_id_range ids;
};

// num_groups groups; each has its own random prefix of prefix_len tokens, and each request is
// that prefix + its own random suffix of suffix_len tokens. Requests are interleaved across
// groups (group of request i = i % num_groups) so that a prefix cache must keep every group.
struct shared_prefix_workload_spec {
  std::size_t num_groups = 8;
  std::size_t requests_per_group = 8;
  std::uint32_t prefix_len = 512;
  std::uint32_t suffix_len = 64;
  std::uint32_t output_len = 64;
  token_id_range ids;
};

// After loading or generating: keep the first `limit` requests, scale prompt lengths
// (truncating) and max_tokens by length_scale (at least 1 each), and map token ids into a
// smaller vocabulary (id % vocab_size) so a workload made for a big model fits a small one.
struct workload_shaping {
  std::optional<std::size_t> limit;
  double length_scale = 1.0;  // in (0, 1]
  std::optional<std::int64_t> vocab_size;
};

// One JSON object per line: {"prompt_token_ids": [...], "max_tokens": N} or
// {"prompt": "text", "max_tokens": N}; other fields are ignored; blank lines are skipped.
// The first bad line fails the load with its line number.
[[nodiscard]] result<std::vector<bench_request>> load_jsonl_workload(
    const std::filesystem::path& path);

[[nodiscard]] result<std::vector<bench_request>> make_random_workload(
    const random_workload_spec& spec, std::uint64_t seed);

[[nodiscard]] result<std::vector<bench_request>> make_shared_prefix_workload(
    const shared_prefix_workload_spec& spec, std::uint64_t seed);

// Fails on an empty result or a request with an empty prompt or max_tokens 0.
[[nodiscard]] result<std::vector<bench_request>> shape_workload(std::vector<bench_request> reqs,
                                                                const workload_shaping& shaping);

}  // namespace pagedserve::loadtest
