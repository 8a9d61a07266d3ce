#pragma once
// json_stream: re-serializes one JSON value while it arrives, compact as Boost.JSON's
// serialize writes it, so that a tool call's arguments stream as they are generated and
// their pieces concatenate to serialize(parse(whole value)) (except that duplicate keys
// stay, where parse keeps the last one).
//
// Each structural character goes out as it is read; a string goes out piece by piece
// (escapes decoded and re-escaped per code point, which is how the serializer writes
// them); a number or literal once it ends. Held back: an unfinished number, literal,
// escape or UTF-8 sequence. Validation is JSON's (RFC 8259, UTF-8 checked, no lone
// surrogates), as Boost.JSON's parser, so a value accepted here parses there.

#include <cstdint>
#include <string>
#include <string_view>

namespace pagedserve::net::detail {

class json_stream {
 public:
  enum class status : std::uint8_t { running, done, failed };

  // Reads `text` until the value ends (or turns out malformed: the bad byte is not read);
  // appends the compact text decided so far to `out`; returns the bytes read.
  std::size_t feed(std::string_view text, std::string& out);
  [[nodiscard]] status state() const { return status_; }

 private:
  // What the next structural character may be.
  enum class expect : std::uint8_t { value, first_value, first_key, key, colon, comma_or_end };
  enum class token : std::uint8_t { none, string, escape, unicode, number, literal };

  bool step(char c, std::string& out);
  bool structural(char c, std::string& out);
  bool begin_value(char c, std::string& out);
  bool close(char c, std::string& out);
  void value_done();
  bool string_char(char c, std::string& out);
  bool continuation(unsigned char b);
  bool escape_char(char c);
  bool unicode_char(char c);
  bool literal_char(char c, std::string& out);
  bool end_number(std::string& out);
  void flush_string(std::string& out);

  status status_ = status::running;
  expect expect_ = expect::value;
  token token_ = token::none;
  std::string stack_;                 // '{' or '[' per open container
  bool in_key_ = false;               // the string being read is an object key
  std::string pending_;               // unfinished number, literal or \u hex digits
  std::string chunk_;                 // decoded string bytes not written yet
  std::uint32_t high_surrogate_ = 0;  // a \uD800-\uDBFF waiting for its pair
  int utf8_need_ = 0;                 // continuation bytes still due
  int utf8_have_ = 0;                 // bytes of the current code point read
  unsigned char utf8_lo_ = 0x80;      // range of the next continuation byte
  unsigned char utf8_hi_ = 0xBF;
};

}  // namespace pagedserve::net::detail
