#include "bench/grammar/workload.h"

#include <fstream>
#include <optional>
#include <sstream>

namespace pagedserve::grammar_bench {
namespace {

namespace json = boost::json;
using kind = structured_outputs_params::kind;

std::optional<kind> parse_kind(std::string_view name) {
  for (const kind k : {kind::json, kind::json_object, kind::regex, kind::choice, kind::grammar}) {
    if (name == to_string(k)) return k;
  }
  return std::nullopt;
}

const json::string* string_field(const json::object& o, const char* key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr ? v->if_string() : nullptr;
}

// The spec of `k` turned into the engine's params: a schema's JSON text, a regex or GBNF
// text, or the list of choices. An empty string when the spec is fine, else what is wrong.
std::string fill_params(kind k, const json::value& spec, structured_outputs_params& params) {
  params.type = k;
  switch (k) {
    case kind::json:
      if (!spec.is_object() && !spec.is_bool()) return "a json spec must be a schema object";
      params.spec = json::serialize(spec);
      return {};
    case kind::json_object:
      return {};
    case kind::regex:
    case kind::grammar:
      if (!spec.is_string()) return "a regex or grammar spec must be a string";
      params.spec = std::string(spec.get_string());
      return {};
    case kind::choice:
      if (!spec.is_array()) return "a choice spec must be a list of strings";
      for (const json::value& c : spec.get_array()) {
        if (!c.is_string()) return "a choice spec must be a list of strings";
        params.choice.emplace_back(c.get_string());
      }
      return {};
  }
  return "unknown kind";
}

result<grammar_bench_entry> parse_entry(const json::value& value, std::size_t index) {
  const std::string where = "entry " + std::to_string(index + 1);
  const json::object* o = value.if_object();
  if (o == nullptr) return make_error(error_code::invalid_argument, where + " is not an object");
  const json::string* name = string_field(*o, "name");
  const json::string* kind_name = string_field(*o, "kind");
  const json::string* text = string_field(*o, "text");
  if (name == nullptr || kind_name == nullptr || text == nullptr) {
    return make_error(error_code::invalid_argument,
                      where + ": \"name\", \"kind\" and \"text\" must be strings");
  }
  const std::optional<kind> k = parse_kind(*kind_name);
  if (!k) {
    return make_error(error_code::invalid_argument,
                      where + " (" + std::string(*name) + "): unknown kind '" +
                          std::string(*kind_name) +
                          "' (json, json_object, regex, choice, grammar)");
  }
  grammar_bench_entry entry{std::string(*name), {}, {}, std::string(*text)};
  if (const json::value* spec = o->if_contains("spec")) entry.spec = *spec;
  if (std::string bad = fill_params(*k, entry.spec, entry.params); !bad.empty()) {
    return make_error(error_code::invalid_argument, where + " (" + entry.name + "): " + bad);
  }
  return entry;
}

}  // namespace

result<std::vector<grammar_bench_entry>> load_grammar_workload(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(error_code::not_found, "cannot open the workload " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  boost::system::error_code ec;
  const json::value doc = json::parse(text.str(), ec);
  if (ec) return make_error(error_code::invalid_argument, path.string() + ": " + ec.message());
  const json::array* list = doc.if_array();
  if (const json::object* o = doc.if_object(); o != nullptr && o->contains("entries")) {
    list = o->at("entries").if_array();
  }
  if (list == nullptr || list->empty()) {
    return make_error(error_code::invalid_argument,
                      path.string() + ": expected a non-empty list of entries");
  }
  std::vector<grammar_bench_entry> entries;
  for (std::size_t i = 0; i < list->size(); ++i) {
    auto entry = parse_entry((*list)[i], i);
    if (!entry) return make_error(entry.err().code, path.string() + ": " + entry.err().message);
    entries.push_back(std::move(*entry));
  }
  return entries;
}

}  // namespace pagedserve::grammar_bench
