#include "net/openai/chat_tool_fields.h"

#include <string>
#include <utility>

#include "net/openai/api_error.h"

namespace pagedserve::net {
namespace {

// A tool's parameters, or any object when it has none.
boost::json::value parameters_of(const boost::json::object& function) {
  const boost::json::value* parameters = function.if_contains("parameters");
  if (parameters != nullptr && parameters->is_object()) return *parameters;
  return boost::json::object{{"type", "object"}};
}

const boost::json::object& function_of(const boost::json::value& tool) {
  return tool.as_object().at("function").as_object();
}

// Each tool must be {"type": "function", "function": {"name": non-empty string, ...}} with
// an object (or absent) parameters.
bool check_tools(body_reader& reader, const boost::json::array& tools) {
  for (std::size_t i = 0; i < tools.size(); ++i) {
    const std::string param = "tools[" + std::to_string(i) + "]";
    const boost::json::object* tool = tools[i].if_object();
    const boost::json::value* type = tool ? tool->if_contains("type") : nullptr;
    if (type == nullptr || !type->is_string() || type->get_string() != "function") {
      reader.fail(bad_request("'" + param + ".type' must be \"function\".", "tools"));
      return false;
    }
    const boost::json::value* function = tool->if_contains("function");
    const boost::json::object* f = function ? function->if_object() : nullptr;
    const boost::json::value* name = f ? f->if_contains("name") : nullptr;
    if (name == nullptr || !name->is_string() || name->get_string().empty()) {
      reader.fail(
          bad_request("'" + param + ".function.name' must be a non-empty string.", "tools"));
      return false;
    }
    const boost::json::value* parameters = f->if_contains("parameters");
    if (parameters != nullptr && !parameters->is_null() && !parameters->is_object()) {
      reader.fail(bad_request("'" + param + ".function.parameters' must be a JSON Schema object.",
                              "tools"));
      return false;
    }
  }
  return true;
}

const boost::json::object* find_tool(const boost::json::array& tools, std::string_view name) {
  for (const boost::json::value& tool : tools) {
    const boost::json::object& f = function_of(tool);
    if (f.at("name").as_string() == name) return &f;
  }
  return nullptr;
}

// The named function of {"type": "function", "function": {"name": f}}, or empty after an
// error.
std::string named_choice(body_reader& reader, const boost::json::object& choice) {
  const boost::json::value* function = choice.if_contains("function");
  const boost::json::object* f = function ? function->if_object() : nullptr;
  const boost::json::value* name = f ? f->if_contains("name") : nullptr;
  if (name == nullptr || !name->is_string() || name->get_string().empty()) {
    reader.fail(
        bad_request("'tool_choice.function.name' must be a non-empty string.", "tool_choice"));
    return {};
  }
  return std::string(name->get_string());
}

void force_calls(body_reader& reader, sampling_params& sampling, boost::json::value schema) {
  if (sampling.structured_outputs) {
    reader.fail(
        bad_request("tool_choice \"required\" or a named function cannot be combined "
                    "with another structured outputs constraint.",
                    "tool_choice"));
    return;
  }
  sampling.structured_outputs = structured_outputs_params{
      structured_outputs_params::kind::json, boost::json::serialize(schema), {}};
}

}  // namespace

boost::json::object required_tool_calls_schema(const boost::json::array& tools,
                                               bool parallel_tool_calls) {
  boost::json::array alternatives;
  for (const boost::json::value& tool : tools) {
    const boost::json::object& f = function_of(tool);
    boost::json::object properties{
        {"name", boost::json::object{{"enum", boost::json::array{f.at("name")}}}},
        {"parameters", parameters_of(f)}};
    alternatives.emplace_back(
        boost::json::object{{"type", "object"},
                            {"properties", std::move(properties)},
                            {"required", boost::json::array{"name", "parameters"}},
                            {"additionalProperties", false}});
  }
  boost::json::object schema{{"type", "array"},
                             {"minItems", 1},
                             {"items", boost::json::object{{"anyOf", std::move(alternatives)}}}};
  if (!parallel_tool_calls) schema["maxItems"] = 1;
  return schema;
}

const boost::json::array* read_tools(body_reader& reader, chat_request& chat) {
  const boost::json::array* tools = reader.array("tools");
  if (reader.failed() || tools == nullptr || tools->empty() || !check_tools(reader, *tools)) {
    return nullptr;
  }
  chat.tools = *tools;
  return tools;
}

void read_tool_fields(body_reader& reader, const model_context& model, chat_request& chat,
                      api_request& out, sampling_params& sampling) {
  for (const char* legacy : {"functions", "function_call"}) {
    if (reader.find(legacy) != nullptr) {
      reader.fail(unsupported(legacy, "use tools and tool_choice"));
    }
  }
  const bool parallel = reader.boolean("parallel_tool_calls").value_or(true);
  const boost::json::array* tools = read_tools(reader, chat);
  if (reader.failed()) return;
  const bool has_tools = tools != nullptr;
  const boost::json::value* choice = reader.find("tool_choice");
  if (choice != nullptr && choice->is_object()) {
    if (!has_tools)
      return reader.fail(bad_request("A named tool_choice needs tools.", "tool_choice"));
    std::string name = named_choice(reader, choice->get_object());
    if (name.empty()) return;
    const boost::json::object* f = find_tool(*tools, name);
    if (f == nullptr) {
      return reader.fail(bad_request(
          "tool_choice names '" + name + "', which is not among the tools.", "tool_choice"));
    }
    force_calls(reader, sampling, parameters_of(*f));
    out.tool_calls = tool_call_options{tool_call_format::named, std::move(name), false};
    return;
  }
  if (choice != nullptr && !choice->is_string()) {
    return reader.fail(
        invalid_type("tool_choice", "\"none\", \"auto\", \"required\" or an object", *choice));
  }
  // Views on both sides: a mixed conditional would build a temporary json::string.
  const std::string_view mode = choice != nullptr ? std::string_view(choice->get_string())
                                                  : std::string_view(has_tools ? "auto" : "none");
  if (mode == "none") return;
  if (mode == "required") {
    if (!has_tools)
      return reader.fail(bad_request("tool_choice \"required\" needs tools.", "tool_choice"));
    force_calls(reader, sampling, required_tool_calls_schema(*tools, parallel));
    out.tool_calls = tool_call_options{tool_call_format::json_array, {}, parallel};
    return;
  }
  if (mode != "auto") {
    return reader.fail(
        bad_request("'tool_choice' must be \"none\", \"auto\", \"required\" or a named "
                    "function.",
                    "tool_choice"));
  }
  if (!has_tools) return;
  if (!model.enable_auto_tool_choice || !model.tool_call_parser) {
    return reader.fail(
        bad_request("\"auto\" tool choice needs the server's enable_auto_tool_choice "
                    "and tool_call_parser (vLLM's --enable-auto-tool-choice "
                    "--tool-call-parser); or send tool_choice \"none\" or "
                    "\"required\".",
                    "tool_choice"));
  }
  out.tool_calls = tool_call_options{*model.tool_call_parser, {}, parallel};
}

}  // namespace pagedserve::net
