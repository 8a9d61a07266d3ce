#pragma once
// The baseline of `pagedserve bench grammar`: xgrammar built to WASM (@mlc-ai/web-xgrammar)
// run by bench/grammar/js/bench.mjs on Node, in the same run and on the same input: the
// workload's constraints, our tokenizer's token ids for each text (so both engines walk the
// same steps), the tokenizer.json's vocabulary and our stop tokens. The script prints raw
// samples; they are reduced here with the same statistics as ours.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bench/grammar/ours.h"
#include "bench/grammar/workload.h"
#include "common/result.h"

namespace pagedserve::grammar_bench {

struct xgrammar_input {
  std::filesystem::path js_dir;  // holds bench.mjs and node_modules
  std::filesystem::path tokenizer_json;
  std::size_t vocab_size = 0;
  std::vector<token_id> stop_token_ids;
  int repeats = 1;
};

struct xgrammar_baseline {
  std::string version;                         // of @mlc-ai/web-xgrammar
  double vocabulary_ms = 0;                    // TokenizerInfo from the encoded vocabulary
  std::vector<grammar_bench_samples> entries;  // in workload order
};

// Why the baseline cannot run here (node or the package is missing), or nothing.
[[nodiscard]] std::optional<std::string> xgrammar_missing(const std::filesystem::path& js_dir);

// Errors: the script failed (a token xgrammar did not allow, a grammar it could not
// compile) or printed something that is not its JSON.
[[nodiscard]] result<xgrammar_baseline> run_xgrammar(
    const xgrammar_input& in, const std::vector<grammar_bench_entry>& entries,
    const std::vector<grammar_bench_case>& cases);

}  // namespace pagedserve::grammar_bench
