#pragma once
// speculative_config: vLLM's --speculative-config, the engine key `speculative_config` (a
// JSON object on the command line, the same object as a YAML map). Off when `method` is
// empty. The scheduler gives each decoding sequence up to num_speculative_tokens lookahead
// slots (fewer, down to none, when the measured acceptance or the step's load says they
// would not pay: runtime/sched/speculation_depth.h); the executor fills them with a
// proposer's tokens and verifies them in the same target step (docs/speculative-decoding.md).
//
//   {"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 4}
//
// ngram: prompt lookup over the sequence's own prompt and output. prompt_lookup_min/max
// default as vLLM's: both 5 when neither is given, else the one given for both.
// suffix: suffix decoding over the outputs of recent requests and the sequence itself
// (runtime/spec/suffix_proposer.h), with vLLM's suffix_decoding_* fields;
// num_speculative_tokens defaults to 16 there (vLLM's to the tree depth, 24: our most is 16).
// draft_model: a smaller model sharing the target's tokenizer proposes greedily; `model` is
// its HF folder or the built-in name pagedserve-demo-draft (the demo model's draft), and its
// K/V live in the target's block pool (runtime/spec/draft_model_proposer.h).
//
//   {"method": "draft_model", "model": "pagedserve-demo-draft", "num_speculative_tokens": 4}

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace pagedserve {

enum class speculative_method : std::uint8_t { none, ngram, suffix, draft_model };

[[nodiscard]] std::string_view to_string(speculative_method method);  // "ngram", ...

struct speculative_config {
  speculative_method method = speculative_method::none;  // none: off
  std::uint32_t num_speculative_tokens = 0;
  // true: each step gives each sequence as many slots as pay, measured (down to none);
  // false: always num_speculative_tokens, as vLLM (for comparisons and tests). Not vLLM's.
  bool adaptive = true;
  std::uint32_t prompt_lookup_min = 0;  // ngram; 0: not given
  std::uint32_t prompt_lookup_max = 0;  // ngram; 0: not given
  // suffix (vLLM's defaults, but max_cached_requests: 1000 rather than 10000, to bound the
  // store at about 12 MiB).
  std::uint32_t suffix_decoding_max_tree_depth = 24;
  std::uint32_t suffix_decoding_max_cached_requests = 1000;
  double suffix_decoding_min_token_prob = 0.1;
  std::string model;  // draft_model: the draft's folder or built-in name (required)

  [[nodiscard]] bool enabled() const { return method != speculative_method::none; }
};

// The most proposed tokens per sequence and step the engine accepts.
inline constexpr std::uint32_t k_max_speculative_tokens = 16;

// Parses vLLM's JSON object (unknown fields, wrong types and out-of-range values are errors
// that name the field); "" is off. The defaults of prompt_lookup_min/max are filled in.
[[nodiscard]] result<speculative_config> parse_speculative_config(std::string_view json);
// `config` with what it leaves at 0 given vLLM's defaults (prompt_lookup_min/max), as parsing
// gives them; for configs made in code.
[[nodiscard]] speculative_config with_defaults(speculative_config config);
// The JSON object parse_speculative_config reads back ("" when off).
[[nodiscard]] std::string format_speculative_config(const speculative_config& config);

}  // namespace pagedserve
