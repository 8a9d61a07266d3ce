#pragma once
// eval_workload: the JSONL workload of `pagedserve eval`, read and checked for form before any
// model runs. Each non-blank line is one JSON object with exactly one of
//   "prompt_token_ids": [int, ...]   (non-empty)     or     "text": "..."   (non-empty)
// Other fields (max_tokens, ...) are ignored, so the bench workloads read as they are. Blank
// lines are skipped but still counted, so every error names the line of the file it is on.

#include <cstdint>
#include <filesystem>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace pagedserve::eval {

struct workload_line {
  std::size_t line_number = 0;  // 1-based, in the file
  // Exactly one is set. Ids are as written (not yet checked against a vocabulary).
  std::optional<std::vector<std::int64_t>> token_ids;
  std::optional<std::string> text;
};

// At most `max_lines` lines (all when absent). Errors (invalid_argument): a line that is not
// a JSON object of the form above, naming its line number; no line at all.
[[nodiscard]] result<std::vector<workload_line>> parse_eval_workload(
    std::istream& in, std::optional<std::size_t> max_lines);

// The same from a file; a file that cannot be opened is an error too (not_found).
[[nodiscard]] result<std::vector<workload_line>> read_eval_workload(
    const std::filesystem::path& path, std::optional<std::size_t> max_lines);

}  // namespace pagedserve::eval
