// pagedserve bench grammar: see cmd_bench_grammar.h. Prints figures; asserts nothing about
// speed. What each figure means: docs/structured-outputs.md, "Benchmark".

#include "cli/cmd_bench_grammar.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "bench/grammar/ours.h"
#include "bench/grammar/report.h"
#include "bench/grammar/workload.h"
#include "bench/grammar/xgrammar.h"
#include "cli/command.h"
#include "runtime/engine/grammar_compiler.h"
#include "runtime/grammar/token_vocabulary.h"
#include "runtime/tokenizer/tokenizer.h"

namespace pagedserve::cli {

using namespace grammar_bench;  // the bench itself (bench/grammar/); this file is its command

namespace {

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

// As the tests find their fixtures: $PAGEDSERVE_TESTDATA_DIR, else the build's setting.
fs::path testdata_dir() {
  if (const char* env = std::getenv("PAGEDSERVE_TESTDATA_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  return PAGEDSERVE_TESTDATA_DIR_DEFAULT;
}

int fail(const error& e) {
  spdlog::error("bench grammar: {}", e.message);
  return exit_status_for(e.code);
}

result<std::vector<token_id>> stop_token_ids(const tokenizer& tok) {
  const auto& eos = tok.specials().eos_token;
  const auto id = eos ? tok.token_to_id(*eos) : std::nullopt;
  if (!id) return make_error(error_code::invalid_argument, "the tokenizer names no eos_token");
  return std::vector<token_id>{*id};
}

// The engine's vocabulary as grammar_compiler builds it, and how long that took.
std::pair<std::shared_ptr<const grammar::token_vocabulary>, double> build_vocabulary(
    const tokenizer& tok, std::vector<token_id> stops) {
  const auto start = clock_type::now();
  std::vector<std::string> bytes(tok.vocab_size());
  for (std::size_t id = 0; id < bytes.size(); ++id) {
    bytes[id] = tok.token_bytes(static_cast<token_id>(id));
  }
  auto vocab = grammar::token_vocabulary::create(std::move(bytes), std::move(stops));
  return {vocab, std::chrono::duration<double, std::milli>(clock_type::now() - start).count()};
}

result<grammar_bench_case> prepare(const grammar_bench_entry& entry, const tokenizer& tok,
                                   token_id stop) {
  auto gbnf = grammar_compiler::to_gbnf(entry.params);
  if (!gbnf) return make_error(gbnf.err().code, entry.name + ": " + gbnf.err().message);
  std::vector<token_id> steps = tok.encode(entry.text, false);
  if (steps.empty()) return make_error(error_code::invalid_argument, entry.name + ": empty text");
  steps.push_back(stop);
  return grammar_bench_case{entry.name, entry.params, std::move(*gbnf), std::move(steps)};
}

// Runs the baseline into `report` when it is installed; an error only when it fails.
status add_xgrammar(const bench_grammar_options& opt, const xgrammar_input& in,
                    const std::vector<grammar_bench_entry>& entries,
                    const std::vector<grammar_bench_case>& cases, grammar_bench_report& report) {
  if (opt.no_xgrammar) {
    report.xgrammar_missing = "--no-xgrammar";
    return status::success();
  }
  if (auto missing = xgrammar_missing(in.js_dir)) {
    report.xgrammar_missing = *missing;
    return status::success();
  }
  auto baseline = run_xgrammar(in, entries, cases);
  if (!baseline) return make_error(baseline.err().code, "xgrammar: " + baseline.err().message);
  report.xgrammar_version = baseline->version;
  report.xgrammar_vocabulary_ms = baseline->vocabulary_ms;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    report.rows[i].xgrammar = summarize(baseline->entries[i]);
  }
  return status::success();
}

}  // namespace

void add_bench_grammar_options(CLI::App& app, bench_grammar_options& opt) {
  opt.tokenizer_dir = (testdata_dir() / "tokenizers" / "llama3").string();
  opt.workload_path = PAGEDSERVE_SOURCE_DIR "/bench/grammar/workloads/default.json";
  opt.xgrammar_js = PAGEDSERVE_SOURCE_DIR "/bench/grammar/js";
  app.add_option("--tokenizer", opt.tokenizer_dir, "tokenizer folder (tokenizer.json)")
      ->capture_default_str();
  app.add_option("--workload", opt.workload_path, "JSON: entries {name, kind, spec, text}")
      ->capture_default_str();
  app.add_option("--repeats", opt.repeats, "fresh compiles (each with a cold and a warm walk)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--xgrammar-js", opt.xgrammar_js, "folder of bench.mjs and its node_modules")
      ->capture_default_str();
  app.add_flag("--no-xgrammar", opt.no_xgrammar, "print our figures only");
  app.add_flag("--json", opt.json, "print one JSON object");
}

int run_bench_grammar(const bench_grammar_options& opt) {
  auto entries = load_grammar_workload(opt.workload_path);
  if (!entries) return fail(entries.err());
  auto tok = tokenizer::load(opt.tokenizer_dir);
  if (!tok) return fail(tok.err());
  auto stops = stop_token_ids(**tok);
  if (!stops) return fail(stops.err());
  const auto [vocab, vocabulary_ms] = build_vocabulary(**tok, *stops);

  grammar_bench_report report;
  report.tokenizer_dir = opt.tokenizer_dir;
  report.workload = opt.workload_path;
  report.vocab_size = vocab->size();
  report.repeats = opt.repeats;
  report.vocabulary_ms = vocabulary_ms;
  std::vector<grammar_bench_case> cases;
  for (const grammar_bench_entry& entry : *entries) {
    auto c = prepare(entry, **tok, stops->front());
    if (!c) return fail(c.err());
    auto samples = bench_ours(*c, vocab, opt.repeats);
    if (!samples) return fail(samples.err());
    report.rows.push_back(
        {c->name, to_string(c->params.type), c->steps.size(), summarize(*samples), std::nullopt});
    cases.push_back(std::move(*c));
  }
  const xgrammar_input in{opt.xgrammar_js, fs::path(opt.tokenizer_dir) / "tokenizer.json",
                          vocab->size(), *stops, opt.repeats};
  if (status s = add_xgrammar(opt, in, *entries, cases, report); !s) return fail(s.err());
  if (opt.json) {
    std::printf("%s\n", boost::json::serialize(to_json(report)).c_str());
  } else {
    print_table(report);
  }
  return 0;
}

}  // namespace pagedserve::cli
