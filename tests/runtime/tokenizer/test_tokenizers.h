#pragma once
// Shared helpers of the tokenizer tests: the real tokenizers under tests/data/tokenizers (loaded
// once per test binary) and their HF golden cases.

#include <memory>
#include <string>
#include <vector>

#include "common/types.h"
#include "runtime/tokenizer/tokenizer.h"

namespace pagedserve::testing {

inline const std::vector<std::string> tokenizer_families = {"llama2", "llama3", "qwen3"};

// Aborts the test binary when the tokenizer does not load (every test depends on it).
[[nodiscard]] std::shared_ptr<const tokenizer> family_tokenizer(const std::string& family);

struct golden_case {
  std::string text;
  std::vector<token_id> ids;
  std::vector<token_id> ids_with_special;
  std::string decoded;
};

[[nodiscard]] const std::vector<golden_case>& golden_cases(const std::string& family);

}  // namespace pagedserve::testing
