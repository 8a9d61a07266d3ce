#pragma once
// The machinery under tool_call_parser: a scanner per family of formats reads the text as
// it comes and reports what is decided as events. Streamed, the events become deltas;
// non-streamed, they are collected, so both ways share one decision procedure and agree.
//
// Every scanner keeps two buffers: held_ (text not read yet: it may still become part of
// a call) and raw_ (text read into the call or call list being matched, not yet given out).
// Until a call's name is out (begin_call) a mismatch gives raw_ back as content. After it,
// a malformed rest cannot be taken back from a stream: abort_call carries the call's raw
// text, the streamer leaves the call as sent, extract_tool_calls turns it back into content.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "net/openai/tool_call_parser.h"

namespace pagedserve::net::detail {

struct scan_event {
  enum class kind : std::uint8_t { content, begin_call, arguments, end_call, abort_call };
  kind what;
  std::string text;  // content, the name (begin_call), an arguments piece, the raw call text
};
using scan_events = std::vector<scan_event>;

class call_scanner {
 public:
  virtual ~call_scanner() = default;

  // Appends `text` and reports what is decided; `at_end`: nothing more will come.
  void scan(std::string_view text, bool at_end, scan_events& out);

 protected:
  // One decision on held_; false when nothing more can be decided without more text.
  virtual bool step(bool at_end, scan_events& out) = 0;

  static void emit(scan_events& out, scan_event::kind what, std::string_view text);
  // Moves the first n bytes of held_ into raw_.
  void consume(std::size_t n);
  // raw_ was not a call after all: it goes out as content.
  void give_up(scan_events& out);
  // A call whose name is out turned out malformed.
  void abort(scan_events& out);
  // Leading whitespace bytes of held_.
  [[nodiscard]] std::size_t leading_space() const;

  std::string held_;
  std::string raw_;
};

[[nodiscard]] bool is_json_space(char c);
// Appends code point `cp` (not a surrogate, at most U+10FFFF) as UTF-8.
void append_utf8(std::string& out, std::uint32_t cp);

// hermes, llama3_json, mistral, json_array and named: JSON call objects, arguments streamed.
[[nodiscard]] std::unique_ptr<call_scanner> make_json_call_scanner(tool_call_format format,
                                                                   std::string named_function);
// pythonic: each call is given out whole once its closing parenthesis arrives.
[[nodiscard]] std::unique_ptr<call_scanner> make_pythonic_scanner();

}  // namespace pagedserve::net::detail
