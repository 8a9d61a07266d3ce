// The JSON tool-call formats as one state machine over the text:
//
//   hermes       content* ( "<tool_call>" head args "}" "</tool_call>" content* )*
//   mistral      content* "[TOOL_CALLS]" "[" call ("," call)* "]" trailer
//   llama3_json  ["<|python_tag|>"] call (";" call)* trailer
//   json_array   "[" call ("," call)* "]" trailer
//   named        args trailer
//
// where call = head args "}" (see tool_call_head.h), args is the arguments object streamed
// through json_stream, and JSON whitespace may come between any two of these. Content
// before a marker streams as soon as it cannot be the marker's start. Whatever breaks the
// pattern ends the calls: from there on the text is content (hermes looks for the next
// "<tool_call>"). Whitespace between hermes blocks and after the last call is dropped.

#include <algorithm>

#include "net/openai/tool_call_head.h"
#include "net/openai/tool_call_json_stream.h"
#include "net/openai/tool_call_scan.h"

namespace pagedserve::net::detail {
namespace {

constexpr std::string_view k_hermes_open = "<tool_call>";
constexpr std::string_view k_hermes_close = "</tool_call>";
constexpr std::string_view k_mistral_marker = "[TOOL_CALLS]";
constexpr std::string_view k_python_tag = "<|python_tag|>";

// Length of the longest suffix of `text` that is a proper prefix of `tag`.
std::size_t partial_tag_suffix(std::string_view text, std::string_view tag) {
  for (std::size_t n = std::min(text.size(), tag.size() - 1); n > 0; --n) {
    if (tag.starts_with(text.substr(text.size() - n))) return n;
  }
  return 0;
}

class json_call_scanner final : public call_scanner {
 public:
  json_call_scanner(tool_call_format format, std::string named_function)
      : format_(format), named_function_(std::move(named_function)) {
    const bool marked = format == tool_call_format::hermes || format == tool_call_format::mistral;
    phase_ = marked ? phase::content : phase::lead;
  }

 private:
  enum class phase : std::uint8_t {
    content,
    lead,
    head,
    args,
    close,
    separator,
    between,
    trailer,
    rest
  };

  bool step(bool at_end, scan_events& out) override {
    switch (phase_) {
      case phase::content:
        return content(at_end, out);
      case phase::lead:
        return lead(at_end, out);
      case phase::head:
        return head(at_end, out);
      case phase::args:
        return args(at_end, out);
      case phase::close:
        return close(at_end, out);
      case phase::separator:
        return separator(at_end);
      case phase::between:
        return between(at_end);
      case phase::trailer:
        return trailer(at_end);
      case phase::rest:
        return rest(out);
    }
    return false;
  }

  // Where the text goes once the pattern broke.
  [[nodiscard]] phase after_failure() const {
    return format_ == tool_call_format::hermes ? phase::content : phase::rest;
  }
  bool fail_before_call(scan_events& out) {
    give_up(out);
    phase_ = after_failure();
    return true;
  }
  bool fail_in_call(scan_events& out) {
    abort(out);
    phase_ = after_failure();
    return true;
  }

  // Content up to the format's marker (hermes, mistral).
  bool content(bool at_end, scan_events& out) {
    const bool hermes = format_ == tool_call_format::hermes;
    const std::string_view marker = hermes ? k_hermes_open : k_mistral_marker;
    const std::size_t at = held_.find(marker);
    if (at == std::string::npos) {
      const std::size_t keep = at_end ? 0 : partial_tag_suffix(held_, marker);
      emit(out, scan_event::kind::content, std::string_view(held_).substr(0, held_.size() - keep));
      held_.erase(0, held_.size() - keep);
      return false;
    }
    emit(out, scan_event::kind::content, std::string_view(held_).substr(0, at));
    held_.erase(0, at);
    consume(marker.size());
    phase_ = hermes ? phase::head : phase::lead;
    return true;
  }

  // What opens the calls: "[" (mistral, json_array), "<|python_tag|>" or the first call's
  // "{" (llama3_json), the arguments' "{" (named).
  bool lead(bool at_end, scan_events& out) {
    const std::size_t space = leading_space();
    const std::string_view rest = std::string_view(held_).substr(space);
    if (rest.empty()) return at_end ? fail_before_call(out) : false;
    if (format_ == tool_call_format::llama3_json) {
      if (rest.starts_with(k_python_tag)) {
        consume(space + k_python_tag.size());
      } else if (rest.front() == '{') {
        consume(space);
      } else if (!at_end && k_python_tag.starts_with(rest)) {
        return false;
      } else {
        return fail_before_call(out);
      }
      phase_ = phase::head;
      return true;
    }
    if (format_ == tool_call_format::named) {
      if (rest.front() != '{') return fail_before_call(out);
      consume(space);
      emit(out, scan_event::kind::begin_call, named_function_);
      begin_arguments();
      return true;
    }
    if (rest.front() != '[') return fail_before_call(out);
    consume(space + 1);
    phase_ = phase::head;
    return true;
  }

  bool head(bool at_end, scan_events& out) {
    const call_head h = match_call_head(held_);
    if (h.result == head_result::need_more && !at_end) return false;
    if (h.result != head_result::matched) return fail_before_call(out);
    consume(h.length);
    emit(out, scan_event::kind::begin_call, h.name);
    begin_arguments();
    return true;
  }

  void begin_arguments() {
    args_ = json_stream{};
    phase_ = phase::args;
  }

  bool args(bool at_end, scan_events& out) {
    std::string piece;
    consume(args_.feed(held_, piece));
    emit(out, scan_event::kind::arguments, piece);
    switch (args_.state()) {
      case json_stream::status::failed:
        return fail_in_call(out);
      case json_stream::status::running:
        return at_end ? fail_in_call(out) : false;
      case json_stream::status::done:
        break;
    }
    if (format_ != tool_call_format::named) {
      phase_ = phase::close;
      return true;
    }
    end_call(out);
    phase_ = phase::trailer;
    return true;
  }

  void end_call(scan_events& out) {
    emit(out, scan_event::kind::end_call, {});
    raw_.clear();
  }

  // The "}" of the call object, right after its arguments.
  bool close(bool at_end, scan_events& out) {
    const std::size_t space = leading_space();
    if (space == held_.size()) return at_end ? fail_in_call(out) : false;
    if (held_[space] != '}') return fail_in_call(out);
    consume(space + 1);
    end_call(out);
    phase_ = phase::separator;
    return true;
  }

  // After a hermes block: whitespace before the next "<tool_call>" or at the end is dropped
  // (the newline a template puts between blocks); anything else is content, whitespace and all.
  bool between(bool at_end) {
    const std::size_t space = leading_space();
    const std::string_view rest = std::string_view(held_).substr(space);
    if (rest.empty()) {
      if (at_end) held_.clear();
      return false;
    }
    if (rest.starts_with(k_hermes_open)) {
      held_.erase(0, space);
    } else if (!at_end && k_hermes_open.starts_with(rest)) {
      return false;
    }
    phase_ = phase::content;
    return true;
  }

  // After a call: hermes' closing tag, or what separates calls in a list.
  bool separator(bool at_end) {
    const std::size_t space = leading_space();
    const std::string_view rest = std::string_view(held_).substr(space);
    if (format_ == tool_call_format::hermes) {
      if (rest.starts_with(k_hermes_close)) {
        held_.erase(0, space + k_hermes_close.size());
      } else if (!at_end && k_hermes_close.starts_with(rest)) {
        return false;
      }
      phase_ = phase::between;
      return true;
    }
    if (rest.empty()) {
      if (!at_end) return false;
      held_.clear();  // the text ended after a call: trailing whitespace is dropped
      phase_ = phase::rest;
      return true;
    }
    const char between = format_ == tool_call_format::llama3_json ? ';' : ',';
    if (rest.front() == between) {
      consume(space + 1);
      phase_ = phase::head;
    } else if (rest.front() == ']' && format_ != tool_call_format::llama3_json) {
      held_.erase(0, space + 1);
      phase_ = phase::trailer;
    } else {
      phase_ = phase::rest;
    }
    return true;
  }

  // After the calls: whitespace is dropped, anything else makes the rest content.
  bool trailer(bool at_end) {
    const std::size_t space = leading_space();
    if (space == held_.size()) {
      if (!at_end) return false;
      held_.clear();
    }
    phase_ = phase::rest;
    return true;
  }

  bool rest(scan_events& out) {
    emit(out, scan_event::kind::content, held_);
    held_.clear();
    return false;
  }

  tool_call_format format_;
  std::string named_function_;
  phase phase_;
  json_stream args_;
};

}  // namespace

std::unique_ptr<call_scanner> make_json_call_scanner(tool_call_format format,
                                                     std::string named_function) {
  return std::make_unique<json_call_scanner>(format, std::move(named_function));
}

}  // namespace pagedserve::net::detail
