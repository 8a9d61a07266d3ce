#include "net/openai/tool_call_parser.h"

#include "net/openai/tool_call_scan.h"

namespace pagedserve::net {
namespace {

using detail::scan_event;
using detail::scan_events;

std::unique_ptr<detail::call_scanner> make_scanner(tool_call_format format,
                                                   std::string named_function) {
  if (format == tool_call_format::pythonic) return detail::make_pythonic_scanner();
  return detail::make_json_call_scanner(format, std::move(named_function));
}

}  // namespace

std::optional<tool_call_format> parse_tool_call_parser(std::string_view name) {
  if (name == "hermes") return tool_call_format::hermes;
  if (name == "llama3_json") return tool_call_format::llama3_json;
  if (name == "mistral") return tool_call_format::mistral;
  if (name == "pythonic") return tool_call_format::pythonic;
  return std::nullopt;
}

// The events of the whole text, collected. A call that broke after its name was decided
// (abort_call) is taken back: its raw text is content, as if it had never looked like one.
extracted_tool_calls extract_tool_calls(tool_call_format format, std::string_view text,
                                        std::string_view named_function) {
  scan_events events;
  make_scanner(format, std::string(named_function))->scan(text, true, events);
  extracted_tool_calls out;
  for (scan_event& e : events) {
    switch (e.what) {
      case scan_event::kind::content:
        out.content += e.text;
        break;
      case scan_event::kind::begin_call:
        out.calls.push_back(parsed_tool_call{std::move(e.text), {}});
        break;
      case scan_event::kind::arguments:
        out.calls.back().arguments += e.text;
        break;
      case scan_event::kind::end_call:
        break;
      case scan_event::kind::abort_call:
        out.calls.pop_back();
        out.content += e.text;
        break;
    }
  }
  return out;
}

struct tool_call_streamer::state {
  std::unique_ptr<detail::call_scanner> scanner;
  std::uint32_t num_calls = 0;

  // The events of one push or flush as one delta: content concatenated, one entry per call
  // touched. A call that broke stays as sent (a stream cannot take pieces back); the text
  // after the break goes on as content.
  stream_delta run(std::string_view text, bool at_end) {
    scan_events events;
    scanner->scan(text, at_end, events);
    stream_delta out;
    for (scan_event& e : events) {
      if (e.what == scan_event::kind::content) {
        out.content += e.text;
      } else if (e.what == scan_event::kind::begin_call) {
        out.calls.push_back(tool_call_delta{num_calls++, std::move(e.text), {}});
      } else if (e.what == scan_event::kind::arguments) {
        if (out.calls.empty() || out.calls.back().index + 1 != num_calls) {
          out.calls.push_back(tool_call_delta{num_calls - 1, std::nullopt, {}});
        }
        out.calls.back().arguments += e.text;
      }
    }
    return out;
  }
};

tool_call_streamer::tool_call_streamer(tool_call_format format, std::string named_function)
    : state_(std::make_unique<state>(state{make_scanner(format, std::move(named_function)), 0})) {}
tool_call_streamer::~tool_call_streamer() = default;
tool_call_streamer::tool_call_streamer(tool_call_streamer&&) noexcept = default;
tool_call_streamer& tool_call_streamer::operator=(tool_call_streamer&&) noexcept = default;

stream_delta tool_call_streamer::push(std::string_view text) { return state_->run(text, false); }
stream_delta tool_call_streamer::flush() { return state_->run({}, true); }
std::uint32_t tool_call_streamer::num_calls() const { return state_->num_calls; }

}  // namespace pagedserve::net
