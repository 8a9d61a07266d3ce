#pragma once
// workload: requests to replay through the simulator, one JSON object per line:
//   {"prompt_token_ids": [1, 2, ...], "max_tokens": 128, "arrival_s": 0.5, "priority": 0}
// arrival_s and priority are optional (absent: arrives at 0 / priority 0).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "common/types.h"

namespace pagedserve::sim {

struct workload_request {
  std::vector<token_id> prompt_token_ids;
  std::uint32_t max_tokens = 16;
  std::optional<double> arrival_s;
  std::int32_t priority = 0;
};

// `line_number` (1-based) only names the line in error messages.
[[nodiscard]] result<workload_request> parse_workload_line(std::string_view line,
                                                           std::size_t line_number);
// Blank lines are skipped; the first bad line fails the whole file.
[[nodiscard]] result<std::vector<workload_request>> load_workload(
    const std::filesystem::path& path);

}  // namespace pagedserve::sim
