#include "net/openai/tool_call_scan.h"

namespace pagedserve::net::detail {

bool is_json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

void append_utf8(std::string& out, std::uint32_t cp) {
  const auto byte = [&](std::uint32_t b) { out += static_cast<char>(b); };
  if (cp < 0x80) {
    byte(cp);
  } else if (cp < 0x800) {
    byte(0xC0 | (cp >> 6));
    byte(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    byte(0xE0 | (cp >> 12));
    byte(0x80 | ((cp >> 6) & 0x3F));
    byte(0x80 | (cp & 0x3F));
  } else {
    byte(0xF0 | (cp >> 18));
    byte(0x80 | ((cp >> 12) & 0x3F));
    byte(0x80 | ((cp >> 6) & 0x3F));
    byte(0x80 | (cp & 0x3F));
  }
}

void call_scanner::scan(std::string_view text, bool at_end, scan_events& out) {
  held_ += text;
  while (step(at_end, out)) {
  }
}

void call_scanner::emit(scan_events& out, scan_event::kind what, std::string_view text) {
  using kind = scan_event::kind;
  if ((what == kind::content || what == kind::arguments) && text.empty()) return;
  if (what == kind::content && !out.empty() && out.back().what == kind::content) {
    out.back().text += text;
    return;
  }
  out.push_back(scan_event{what, std::string(text)});
}

void call_scanner::consume(std::size_t n) {
  raw_.append(held_, 0, n);
  held_.erase(0, n);
}

void call_scanner::give_up(scan_events& out) {
  emit(out, scan_event::kind::content, raw_);
  raw_.clear();
}

void call_scanner::abort(scan_events& out) {
  emit(out, scan_event::kind::abort_call, raw_);
  raw_.clear();
}

std::size_t call_scanner::leading_space() const {
  std::size_t n = 0;
  while (n < held_.size() && is_json_space(held_[n])) ++n;
  return n;
}

}  // namespace pagedserve::net::detail
