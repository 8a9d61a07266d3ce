#pragma once
// tool_call_parser: turns the text a model generated into OpenAI tool calls, as vLLM's
// --tool-call-parser does, the same way streamed or not. The formats (vLLM's names):
//
//   hermes       <tool_call>\n{"name": "f", "arguments": {...}}\n</tool_call>, any number,
//                with content before (and between) them: Qwen2.5/Qwen3, Hermes.
//   llama3_json  {"name": "f", "parameters": {...}} (or "arguments"), optionally after
//                <|python_tag|>, several separated by ";": Llama 3.1/3.2's JSON tool calls.
//   mistral      [TOOL_CALLS][{"name": "f", "arguments": {...}}, ...]
//   pythonic     [f(a=1, b="x"), g()]: Llama 3.2/4's pythonic calls; arguments become JSON.
//
// and two formats the server itself asks for through the grammar engine (vLLM's behaviour
// for tool_choice "required" and a named function):
//
//   json_array   [{"name": "f", "parameters": {...}}, ...]  (tool_choice "required")
//   named        the text is the arguments object of the one named function
//
// Text that is not a well-formed call stays content (never an error, never lost).
// Arguments come out as JSON text, compact as serialized by Boost.JSON (OpenAI's
// function.arguments is a string).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pagedserve::net {

enum class tool_call_format : std::uint8_t {
  hermes,
  llama3_json,
  mistral,
  pythonic,
  json_array,
  named,
};

// "hermes", "llama3_json", "mistral", "pythonic" (the server's tool_call_parser key);
// nullopt for another name.
[[nodiscard]] std::optional<tool_call_format> parse_tool_call_parser(std::string_view name);

struct parsed_tool_call {
  std::string name;
  std::string arguments;  // JSON text of an object
};

struct extracted_tool_calls {
  std::string content;  // the text that is not part of a call (may be empty)
  std::vector<parsed_tool_call> calls;
};

// Non-streaming: the whole generated text. `named_function` is the function's name for
// tool_call_format::named (ignored otherwise).
[[nodiscard]] extracted_tool_calls extract_tool_calls(tool_call_format format,
                                                      std::string_view text,
                                                      std::string_view named_function = {});

// One streamed piece: content text, or a piece of call `index` (OpenAI's
// delta.tool_calls[i]): its first piece has the name (and the caller adds id and type),
// later pieces only arguments text. The arguments pieces of one call concatenate to its
// arguments JSON text.
struct tool_call_delta {
  std::uint32_t index = 0;
  std::optional<std::string> name;  // the first piece of a call
  std::string arguments;            // may be empty in the first piece
};

struct stream_delta {
  std::string content;
  std::vector<tool_call_delta> calls;
};

// Streaming: push the text as it comes; what is decided is returned; text that could still
// become (part of) a call is held back until it is decided. flush() at the end releases the
// rest (an unfinished call's text goes out as content).
class tool_call_streamer {
 public:
  explicit tool_call_streamer(tool_call_format format, std::string named_function = {});
  ~tool_call_streamer();
  tool_call_streamer(tool_call_streamer&&) noexcept;
  tool_call_streamer& operator=(tool_call_streamer&&) noexcept;

  [[nodiscard]] stream_delta push(std::string_view text);
  [[nodiscard]] stream_delta flush();
  // Calls begun so far (finish_reason is "tool_calls" when any, except for `named`).
  [[nodiscard]] std::uint32_t num_calls() const;

 private:
  struct state;
  std::unique_ptr<state> state_;
};

}  // namespace pagedserve::net
