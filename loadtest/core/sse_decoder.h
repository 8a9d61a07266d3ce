#pragma once
// sse_decoder: Server-Sent Events framing, fed with the body bytes as they arrive in pieces of
// any size. An event ends at a blank line; its `data:` lines are joined with "\n" (one
// optional space after the colon is dropped); comment lines (":") and other fields are
// ignored; "\n", "\r\n" and "\r" all end a line.

#include <string>
#include <string_view>
#include <vector>

namespace pagedserve::loadtest {

class sse_decoder {
 public:
  // Appends the data of every event completed by `bytes` to `events`.
  void feed(std::string_view bytes, std::vector<std::string>& events);
  // True while part of an event (or line) is buffered.
  [[nodiscard]] bool has_partial_event() const;

 private:
  std::string line_;  // the current unfinished line
  std::string data_;  // data of the current event so far
  bool has_data_ = false;
  bool last_was_cr_ = false;  // a "\r" ended the last line: a following "\n" belongs to it
};

}  // namespace pagedserve::loadtest
