#include "net/openai/structured_output_fields.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "net/openai/api_error.h"

namespace pagedserve::net {
namespace {

using kind = structured_outputs_params::kind;

// Collects the constraints the body gives; more than one is a 400.
class constraint_reader {
 public:
  explicit constraint_reader(body_reader& reader) : reader_(reader) {}

  void add(const std::string& field, structured_outputs_params params) {
    if (found_) {
      reader_.fail(
          bad_request("Only one kind of structured outputs constraint may be given, got '" +
                          found_field_ + "' and '" + field + "'.",
                      field));
      return;
    }
    found_ = std::move(params);
    found_field_ = field;
  }
  // A JSON Schema given as an object or as its JSON text.
  void add_schema(const std::string& field, const boost::json::value& schema) {
    if (schema.is_object() || schema.is_bool()) {
      add(field, {kind::json, boost::json::serialize(schema), {}});
    } else if (schema.is_string()) {
      add(field, {kind::json, std::string(schema.get_string()), {}});
    } else {
      reader_.fail(invalid_type(field, "a JSON Schema object or its JSON text", schema));
    }
  }
  void add_text(const std::string& field, kind type, const boost::json::value& text) {
    if (!text.is_string() || text.get_string().empty()) {
      reader_.fail(invalid_type(field, "a non-empty string", text));
      return;
    }
    add(field, {type, std::string(text.get_string()), {}});
  }
  void add_choice(const std::string& field, const boost::json::value& choices) {
    std::vector<std::string> strings;
    if (choices.is_array()) {
      for (const boost::json::value& c : choices.get_array()) {
        if (!c.is_string()) break;
        strings.emplace_back(c.get_string());
      }
    }
    if (!choices.is_array() || choices.get_array().empty() ||
        strings.size() != choices.get_array().size()) {
      reader_.fail(invalid_type(field, "a non-empty array of strings", choices));
      return;
    }
    add(field, {kind::choice, {}, std::move(strings)});
  }

  body_reader& reader() { return reader_; }
  std::optional<structured_outputs_params> take() { return std::move(found_); }

 private:
  body_reader& reader_;
  std::optional<structured_outputs_params> found_;
  std::string found_field_;
};

void read_response_format(constraint_reader& c) {
  const boost::json::object* format = c.reader().object("response_format");
  if (format == nullptr) return;
  const boost::json::value* type = format->if_contains("type");
  // Views on both sides: a mixed conditional would build a temporary json::string.
  const std::string_view name = type != nullptr && type->is_string()
                                    ? std::string_view(type->get_string())
                                    : std::string_view();
  if (name == "text") return;
  if (name == "json_object") return c.add("response_format", {kind::json_object, {}, {}});
  if (name != "json_schema") {
    c.reader().fail(
        bad_request("'response_format.type' must be one of 'text', 'json_object', 'json_schema'.",
                    "response_format"));
    return;
  }
  const boost::json::value* json_schema = format->if_contains("json_schema");
  const boost::json::value* schema = json_schema != nullptr && json_schema->is_object()
                                         ? json_schema->get_object().if_contains("schema")
                                         : nullptr;
  if (schema == nullptr || schema->is_null()) {
    c.reader().fail(
        bad_request("'response_format.json_schema.schema' is required.", "response_format"));
    return;
  }
  c.add_schema("response_format", *schema);
}

// vLLM's StructuredOutputsParams. The whitespace options: JSON is always compact here.
void read_structured_outputs_object(constraint_reader& c) {
  const boost::json::object* so = c.reader().object("structured_outputs");
  if (so == nullptr) return;
  for (const auto& [key, value] : *so) {
    if (value.is_null()) continue;
    const std::string field = "structured_outputs." + std::string(key);
    if (key == "json") {
      c.add_schema(field, value);
    } else if (key == "regex") {
      c.add_text(field, kind::regex, value);
    } else if (key == "grammar") {
      c.add_text(field, kind::grammar, value);
    } else if (key == "choice") {
      c.add_choice(field, value);
    } else if (key == "json_object") {
      if (value.is_bool() && value.get_bool()) c.add(field, {kind::json_object, {}, {}});
    } else if (key == "disable_any_whitespace" || key == "disable_fallback" ||
               key == "disable_additional_properties") {
      if (!value.is_bool()) c.reader().fail(invalid_type(field, "a boolean", value));
    } else {
      c.reader().fail(unsupported(field,
                                  "structured outputs accept json, regex, choice, grammar "
                                  "and json_object"));
    }
  }
}

void read_legacy_fields(constraint_reader& c) {
  body_reader& r = c.reader();
  if (const boost::json::value* v = r.find("guided_json")) c.add_schema("guided_json", *v);
  if (const boost::json::value* v = r.find("json_schema")) c.add_schema("json_schema", *v);
  if (const boost::json::value* v = r.find("guided_regex"))
    c.add_text("guided_regex", kind::regex, *v);
  if (const boost::json::value* v = r.find("regex")) c.add_text("regex", kind::regex, *v);
  if (const boost::json::value* v = r.find("guided_grammar")) {
    c.add_text("guided_grammar", kind::grammar, *v);
  }
  if (const boost::json::value* v = r.find("ebnf")) c.add_text("ebnf", kind::grammar, *v);
  if (const boost::json::value* v = r.find("guided_choice")) c.add_choice("guided_choice", *v);
  // One grammar engine here: any backend name is served by it.
  if (const boost::json::value* v = r.find("guided_decoding_backend"); v && !v->is_string()) {
    r.fail(invalid_type("guided_decoding_backend", "a string", *v));
  }
}

}  // namespace

void read_structured_outputs(body_reader& reader, sampling_params& s) {
  constraint_reader c(reader);
  read_response_format(c);
  read_structured_outputs_object(c);
  read_legacy_fields(c);
  if (!reader.failed()) s.structured_outputs = c.take();
}

}  // namespace pagedserve::net
