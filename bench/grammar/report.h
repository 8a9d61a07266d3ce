#pragma once
// The output of `pagedserve bench grammar`: per entry our figures, xgrammar's and the ratio
// ours / xgrammar (< 1: ours is faster), then a summary line of geometric means of the
// ratios; as a table, or one JSON object (--json). docs/structured-outputs.md ("Benchmark")
// says what each figure means.

#include <optional>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "bench/grammar/ours.h"

namespace pagedserve::grammar_bench {

struct grammar_bench_row {
  std::string name;
  std::string kind;
  std::size_t num_tokens = 0;  // steps walked: the text's tokens and the stop token
  grammar_bench_figures ours;
  std::optional<grammar_bench_figures> xgrammar;
};

struct grammar_bench_report {
  std::string tokenizer_dir;
  std::string workload;
  std::size_t vocab_size = 0;
  int repeats = 0;
  double vocabulary_ms = 0;  // ours: token bytes of every id + token_vocabulary::create
  std::optional<double> xgrammar_vocabulary_ms;  // TokenizerInfo.createTokenizerInfo
  std::string xgrammar_version;                  // empty when it did not run
  std::string xgrammar_missing;                  // why it did not run
  std::vector<grammar_bench_row> rows;
};

void print_table(const grammar_bench_report& report);
[[nodiscard]] boost::json::object to_json(const grammar_bench_report& report);

}  // namespace pagedserve::grammar_bench
