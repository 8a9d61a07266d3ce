#pragma once
// regex: a PCRE2 pattern compiled once (PCRE2_UTF | PCRE2_UCP, JIT when available) and shared
// read-only between threads; each search uses its own match data.

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.h"

namespace pagedserve {

class regex {
 public:
  [[nodiscard]] static result<std::shared_ptr<const regex>> compile(std::string_view pattern);
  ~regex();
  regex(const regex&) = delete;
  regex& operator=(const regex&) = delete;

  // Calls on_match(begin, end) for every non-overlapping match in text (valid UTF-8), left to
  // right. After an empty match the search resumes one character further, as Oniguruma's
  // find_iter does. Should PCRE2 hit a resource limit, the rest of the text counts as
  // unmatched.
  void for_each_match(std::string_view text,
                      const std::function<void(std::size_t, std::size_t)>& on_match) const;

 private:
  regex() = default;
  void* code_ = nullptr;  // pcre2_code*
  bool jit_ = false;
};

}  // namespace pagedserve
