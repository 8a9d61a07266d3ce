#pragma once
// The workload of `pagedserve bench grammar`: a JSON file of constraints, each with a text
// that matches it. The bench tokenizes each text and walks it token by token through the
// grammar (bench/grammar/workloads/default.json is the shipped one):
//
//   {"entries": [{"name": "order", "kind": "json", "spec": {...schema...}, "text": "{...}"},
//                {"name": "date", "kind": "regex", "spec": "\\d{4}-\\d{2}", "text": "2024-07"},
//                {"name": "mood", "kind": "choice", "spec": ["happy", "sad"], "text": "sad"},
//                {"name": "obj", "kind": "json_object", "text": "{\"a\":1}"},
//                {"name": "sum", "kind": "grammar", "spec": "root ::= ...", "text": "1+2"}]}
//
// A top-level array of entries is read too. JSON texts must be compact (no whitespace
// between tokens) and list properties in the schema's order: the grammars allow no other
// spelling.

#include <filesystem>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "api/structured_outputs_params.h"
#include "common/result.h"

namespace pagedserve::grammar_bench {

struct grammar_bench_entry {
  std::string name;
  structured_outputs_params params;
  boost::json::value spec;  // as written: the baseline reads it in its own terms
  std::string text;         // a document the constraint accepts
};

// Errors: not_found (no file), invalid_argument naming the entry and the field at fault.
[[nodiscard]] result<std::vector<grammar_bench_entry>> load_grammar_workload(
    const std::filesystem::path& path);

}  // namespace pagedserve::grammar_bench
