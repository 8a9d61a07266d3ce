#include "bench/grammar/xgrammar.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>

#include <boost/json.hpp>

#include "tests/support/run_command.h"

namespace pagedserve::grammar_bench {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

// Appends rather than "'" + s + "'", which GCC 12 at -O3 flags as a false -Wrestrict.
std::string quoted(const fs::path& p) {
  std::string out = "'";
  out += p.string();
  out += '\'';
  return out;
}

// The script's input: everything it needs, so that it tokenizes and translates nothing we
// could disagree on (regex: web-xgrammar 0.1.x has no regex compiler; it gets our GBNF).
json::object prepared_input(const xgrammar_input& in,
                            const std::vector<grammar_bench_entry>& entries,
                            const std::vector<grammar_bench_case>& cases) {
  json::array list;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    list.push_back(json::object{{"name", entries[i].name},
                                {"kind", to_string(entries[i].params.type)},
                                {"spec", entries[i].spec},
                                {"gbnf", cases[i].gbnf},
                                {"steps", json::value_from(cases[i].steps)}});
  }
  return {{"tokenizer_json", in.tokenizer_json.string()},
          {"vocab_size", in.vocab_size},
          {"stop_token_ids", json::value_from(in.stop_token_ids)},
          {"repeats", in.repeats},
          {"entries", std::move(list)}};
}

std::vector<double> numbers(const json::value& v) {
  std::vector<double> out;
  for (const json::value& x : v.as_array()) out.push_back(x.to_number<double>());
  return out;
}

result<xgrammar_baseline> parse_output(const std::string& out, std::size_t num_entries) {
  boost::system::error_code ec;
  const json::value doc = json::parse(out, ec);
  if (ec || !doc.is_object()) {
    return make_error(error_code::internal, "the xgrammar script printed no JSON: " + out);
  }
  const json::object& o = doc.get_object();
  if (const json::value* e = o.if_contains("error")) {
    return make_error(error_code::internal, json::value_to<std::string>(*e));
  }
  xgrammar_baseline b;
  b.version = json::value_to<std::string>(o.at("version"));
  b.vocabulary_ms = o.at("vocabulary_ms").to_number<double>();
  for (const json::value& e : o.at("entries").as_array()) {
    b.entries.push_back(
        {numbers(e.at("compile_ms")), numbers(e.at("cold_us")), numbers(e.at("warm_us"))});
  }
  if (b.entries.size() != num_entries) {
    return make_error(error_code::internal, "the xgrammar script skipped entries");
  }
  return b;
}

}  // namespace

std::optional<std::string> xgrammar_missing(const fs::path& js_dir) {
  if (testing::run_command("command -v node").out.empty()) return "node is not installed";
  if (!fs::exists(js_dir / "node_modules" / "@mlc-ai" / "web-xgrammar")) {
    return "@mlc-ai/web-xgrammar is missing (run `npm ci` in " + js_dir.string() + ")";
  }
  return std::nullopt;
}

result<xgrammar_baseline> run_xgrammar(const xgrammar_input& in,
                                       const std::vector<grammar_bench_entry>& entries,
                                       const std::vector<grammar_bench_case>& cases) {
  const fs::path input_file = fs::temp_directory_path() /
                              ("pagedserve-bench-grammar-" + std::to_string(getpid()) + ".json");
  std::ofstream(input_file) << json::serialize(prepared_input(in, entries, cases));
  const std::string out =
      testing::run_command("node " + quoted(in.js_dir / "bench.mjs") + " " + quoted(input_file))
          .out;
  std::error_code ignored;
  fs::remove(input_file, ignored);
  return parse_output(out, entries.size());
}

}  // namespace pagedserve::grammar_bench
