#pragma once
// python_reader: one pythonic tool call, `name(key=literal, ...)`, read off the start of a
// text that may still be growing, its arguments turned into a JSON object. Literals are
// Python's: strings ('...' or "...", with Python's escapes), numbers, True/False/None,
// lists, tuples (as arrays) and dicts with string keys.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json.hpp>

namespace pagedserve::net::detail {

struct python_call {
  std::string name;
  boost::json::object arguments;
};

class python_reader {
 public:
  explicit python_reader(std::string_view text) : text_(text) {}

  // The call at the start (after spaces), or nullopt: then incomplete() tells whether the
  // text ended inside it (a longer text may still hold a call) or it is not a call.
  [[nodiscard]] std::optional<python_call> call();
  [[nodiscard]] bool incomplete() const { return incomplete_; }
  [[nodiscard]] std::size_t pos() const { return pos_; }

 private:
  std::optional<boost::json::value> value();
  std::optional<boost::json::value> word();
  std::optional<boost::json::value> number();
  std::optional<boost::json::value> sequence(char close);
  std::optional<boost::json::value> dict();
  std::optional<std::string> string_literal();
  bool escape(std::string& out);
  bool code_point(int digits, std::string& out);
  std::optional<std::string> identifier();
  // Skips spaces; false (and incomplete) at the end of the text.
  bool more();
  // Consumes `c` after spaces if it is next.
  bool eat(char c);

  std::string_view text_;
  std::size_t pos_ = 0;
  bool incomplete_ = false;
  int depth_ = 0;  // open lists, tuples and dicts: bounded, as the reader recurses
};

}  // namespace pagedserve::net::detail
