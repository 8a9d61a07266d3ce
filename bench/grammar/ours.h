#pragma once
// Our side of `pagedserve bench grammar`: the raw timings of one entry through the grammar
// engine (runtime/grammar), and the statistics both engines' samples are reduced with.
//
// Each repeat compiles the entry afresh (no grammar_compiler cache: compile_gbnf directly,
// so the compiled grammar's per-state mask cache starts empty), then walks the entry's
// tokens twice with a new matcher each time: the first walk ("cold") computes each state's
// mask and caches it in the compiled grammar, the second ("warm") finds them cached, as the
// second request with the same schema does. Every step checks that the next token is in
// the mask and is accepted, and the walk ends with a stop token: a bench whose grammar does
// not match its text fails instead of timing nothing.

#include <memory>
#include <string>
#include <vector>

#include "api/structured_outputs_params.h"
#include "common/result.h"
#include "common/types.h"
#include "runtime/grammar/token_vocabulary.h"

namespace pagedserve::grammar_bench {

// One engine on one entry, every repeat pooled.
struct grammar_bench_samples {
  std::vector<double> compile_ms;  // one per repeat
  std::vector<double> cold_us;     // one per step (tokens + the stop token) per repeat
  std::vector<double> warm_us;
};

// An entry ready to run: its constraint, our GBNF of it, and its text's token ids.
struct grammar_bench_case {
  std::string name;
  structured_outputs_params params;
  std::string gbnf;             // grammar_compiler::to_gbnf(params)
  std::vector<token_id> steps;  // the text's tokens, then a stop token
};

[[nodiscard]] result<grammar_bench_samples> bench_ours(
    const grammar_bench_case& c, const std::shared_ptr<const grammar::token_vocabulary>& vocab,
    int repeats);

struct latency_summary {
  double mean_us = 0;
  double p50_us = 0;
  double p99_us = 0;
};

// What the report prints of one engine on one entry.
struct grammar_bench_figures {
  double compile_ms = 0;        // median over repeats
  double first_request_ms = 0;  // compile + the masks of one cold walk (mean over repeats)
  latency_summary cold;
  latency_summary warm;
};

[[nodiscard]] latency_summary summarize(std::vector<double> samples_us);
[[nodiscard]] grammar_bench_figures summarize(const grammar_bench_samples& samples);

}  // namespace pagedserve::grammar_bench
