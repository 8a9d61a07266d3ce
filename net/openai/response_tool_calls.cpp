#include "net/openai/response_tool_calls.h"

#include <algorithm>
#include <utility>

namespace pagedserve::net {

choice_tool_calls::choice_tool_calls(const tool_call_options& options)
    : options_(options), streamer_(options.format, options.named_function) {}

std::string choice_tool_calls::push(std::string_view content, boost::json::array& deltas) {
  return take(streamer_.push(content), deltas);
}

std::string choice_tool_calls::flush(boost::json::array& deltas) {
  return take(streamer_.flush(), deltas);
}

std::string choice_tool_calls::take(stream_delta delta, boost::json::array& deltas) {
  for (tool_call_delta& call : delta.calls) {
    if (!kept(call.index)) continue;
    boost::json::object function;
    boost::json::object entry{{"index", call.index}};
    if (call.name) {
      while (ids_.size() <= call.index) ids_.push_back(make_tool_call_id());
      num_calls_ = std::max(num_calls_, call.index + 1);
      entry["id"] = ids_[call.index];
      entry["type"] = "function";
      function["name"] = *call.name;
    }
    function["arguments"] = call.arguments;
    entry["function"] = std::move(function);
    deltas.emplace_back(std::move(entry));
  }
  return std::move(delta.content);
}

std::string choice_tool_calls::extract(std::string_view content, boost::json::array& calls) {
  extracted_tool_calls extracted =
      extract_tool_calls(options_.format, content, options_.named_function);
  for (parsed_tool_call& call : extracted.calls) {
    if (!kept(num_calls_)) break;
    ++num_calls_;
    boost::json::object function;
    function["name"] = call.name;
    function["arguments"] = call.arguments;
    boost::json::object entry;
    entry["id"] = make_tool_call_id();
    entry["type"] = "function";
    entry["function"] = std::move(function);
    calls.emplace_back(std::move(entry));
  }
  return std::move(extracted.content);
}

}  // namespace pagedserve::net
