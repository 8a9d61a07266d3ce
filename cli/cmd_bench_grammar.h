#pragma once
// `pagedserve bench grammar`: compile time and per-token mask time of the structured-outputs
// engine (runtime/grammar) on a workload of constraints and matching texts, beside xgrammar
// built to WASM (@mlc-ai/web-xgrammar, bench/grammar/js) in the same run, with the ratios.
// Registered as a subcommand of `pagedserve bench` (cmd_bench.cpp).

#include <CLI/CLI.hpp>

#include <string>

namespace pagedserve::cli {

struct bench_grammar_options {
  std::string tokenizer_dir;  // default: <shared>/tokenizers/llama3
  std::string workload_path;  // default: bench/grammar/workloads/default.json
  std::string xgrammar_js;    // default: bench/grammar/js
  int repeats = 3;
  bool no_xgrammar = false;
  bool json = false;
};

void add_bench_grammar_options(CLI::App& app, bench_grammar_options& opt);
// Exit status: 0; 1 when a grammar does not accept its text (ours or xgrammar's) or the
// baseline fails; 2 for bad input (a workload, tokenizer or constraint at fault).
[[nodiscard]] int run_bench_grammar(const bench_grammar_options& opt);

}  // namespace pagedserve::cli
