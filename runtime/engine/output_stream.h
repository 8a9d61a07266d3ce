#pragma once
// output_stream: one completion's text side. Fed each sampled token, it returns the token
// ids and the text that may be shown now, and reports a stop string when the text reaches
// one. Text that could be the start of a stop string is held back until it is certain
// either way (so a stop string never reaches the client unless include_stop_str_in_output
// asks for it); everything after the stop string is never emitted. Without a tokenizer text is
// always empty and only ids flow (stop strings then never match: add_request rejects that
// combination).

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/types.h"
#include "runtime/tokenizer/detokenizer.h"
#include "runtime/tokenizer/tokenizer.h"

namespace pagedserve {

// What a request asks of its text (generation_request's fields of the same names).
struct text_options {
  std::vector<std::string> stop;
  bool skip_special_tokens = true;
  // vLLM's min_tokens: the text of the first min_tokens tokens is not searched for stops.
  std::uint32_t min_tokens = 0;
  bool include_stop_str_in_output = false;  // the matched stop string ends the text
};

class output_stream {
 public:
  struct delta {
    std::vector<token_id> token_ids;         // the pushed token (always, even at a stop)
    std::string text;                        // text that became final
    std::optional<std::string> stop_string;  // set once a stop string matched
  };

  // `tok` may be null. `prompt` seeds the detokenizer's context (never emitted).
  output_stream(std::shared_ptr<const tokenizer> tok, text_options options,
                std::span<const token_id> prompt);

  // Appends one sampled token. After a stop string matched, further pushes return nothing.
  [[nodiscard]] delta push(token_id id);
  // At the end (length, EOS, cancel): everything still held back. Empty after a stop match.
  [[nodiscard]] std::string flush();

  [[nodiscard]] bool stopped() const;

 private:
  // Where the stable text may be cut: before `cut` it is final; from `cut` on it is held
  // back (a stop string may start there), or, when `match` is set, stop_strings_[*match]
  // starts at `cut` and nothing from there on is ever emitted.
  struct scan_result {
    std::size_t cut = 0;
    std::optional<std::size_t> match;
  };
  [[nodiscard]] scan_result scan(std::string_view text, bool at_end) const;
  // Appends piece to the held text and returns what became final; sets stopped_ on a match.
  [[nodiscard]] std::string release(std::string_view piece, bool at_end,
                                    std::optional<std::string>& stop_string);

  std::optional<detokenizer> detokenizer_;  // none without a tokenizer
  std::vector<std::string> stop_strings_;   // non-empty ones only
  // Invariant: held_ is the stable text not yet emitted; it is shorter than the longest stop
  // string (plus at most one UTF-8 character) and every stop string occurrence in the text
  // so far that could still be the earliest starts inside it.
  std::string held_;
  bool stopped_ = false;
  std::uint32_t unsearched_tokens_ = 0;  // pushes left whose text is not searched
  bool include_stop_ = false;
};

}  // namespace pagedserve
