#include "loadtest/core/sse_decoder.h"

namespace pagedserve::loadtest {
namespace {

// The value of a "field:value" line when the field is `data`, without the one optional space.
bool data_value(std::string_view line, std::string_view& value) {
  constexpr std::string_view field = "data";
  if (line == field) {
    value = {};
    return true;
  }
  if (line.size() <= field.size() || line.substr(0, field.size()) != field ||
      line[field.size()] != ':') {
    return false;
  }
  value = line.substr(field.size() + 1);
  if (!value.empty() && value.front() == ' ') {
    value.remove_prefix(1);
  }
  return true;
}

}  // namespace

void sse_decoder::feed(std::string_view bytes, std::vector<std::string>& events) {
  for (char c : bytes) {
    if (c == '\n' && last_was_cr_) {
      last_was_cr_ = false;  // the second half of "\r\n": the line already ended
      continue;
    }
    last_was_cr_ = c == '\r';
    if (c != '\n' && c != '\r') {
      line_.push_back(c);
      continue;
    }
    if (line_.empty()) {  // a blank line ends the event
      if (has_data_) {
        events.push_back(std::move(data_));
      }
      data_.clear();
      has_data_ = false;
      continue;
    }
    std::string_view value;
    if (data_value(line_, value)) {
      if (has_data_) {
        data_.push_back('\n');
      }
      data_.append(value);
      has_data_ = true;
    }
    line_.clear();
  }
}

bool sse_decoder::has_partial_event() const { return !line_.empty() || has_data_; }

}  // namespace pagedserve::loadtest
