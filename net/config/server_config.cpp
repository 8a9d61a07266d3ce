// load_server_config: a YAML map of keys to scalars, each applied with set_config_key (the
// same path as the flags). validate: the checks across keys, after file and flags.

#include "net/config/server_config.h"

#include "common/config_value.h"
#include "runtime/routing/replica_address.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace pagedserve::net {
namespace {

error invalid(std::string message) {
  return make_error(error_code::invalid_argument, std::move(message));
}

// Edit distance, for "did you mean" on a misspelt key.
std::size_t distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string suggestion(std::string_view key) {
  const config_key_info* best = nullptr;
  std::size_t best_distance = 4;  // further than this is not a misspelling
  for (const config_key_info& info : config_keys()) {
    const std::size_t d = distance(key, info.key);
    if (d < best_distance) {
      best = &info;
      best_distance = d;
    }
  }
  return best == nullptr ? "" : " (did you mean '" + best->key + "'?)";
}

std::string where(const std::filesystem::path& file, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  std::string text = file.string();
  if (!mark.is_null()) {
    text += ':';
    text += std::to_string(mark.line + 1);
  }
  return text;
}

std::string node_kind(const YAML::Node& node) {
  if (node.IsMap()) return "a map";
  if (node.IsSequence()) return "a list";
  return "not a scalar";
}

// A YAML map as the JSON object it spells (an object key: speculative_config). Scalars that
// read as integers, numbers or booleans stay unquoted; nested maps and lists recurse.
std::string json_of(const YAML::Node& node) {
  if (node.IsMap()) {
    std::string out = "{";
    for (const auto& entry : node) {
      if (out.size() > 1) out += ',';
      out += json_of(entry.first) + ':' + json_of(entry.second);
    }
    return out + '}';
  }
  if (node.IsSequence()) {
    std::string out = "[";
    for (const YAML::Node& item : node) {
      if (out.size() > 1) out += ',';
      out += json_of(item);
    }
    return out + ']';
  }
  if (node.IsNull()) return "null";
  const std::string& text = node.Scalar();
  const bool plain = node.Tag() != "!";  // not quoted in the YAML text
  if (plain && (text == "true" || text == "false")) return text;
  if (plain && config_value::parse_double(text)) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + '"';
}

// One `key: value` entry of the top-level map.
status apply_entry(server_config& config, const std::filesystem::path& file,
                   const YAML::Node& key_node, const YAML::Node& value) {
  const std::string key = key_node.IsScalar() ? key_node.Scalar() : "";
  if (key.empty()) return invalid("a key that is not a plain name in " + where(file, key_node));
  const auto info = std::find_if(config_keys().begin(), config_keys().end(),
                                 [&](const config_key_info& i) { return i.key == key; });
  if (info == config_keys().end()) {
    return invalid("unknown key '" + key + "' in " + where(file, key_node) + suggestion(key));
  }
  // `key:` with nothing after it is YAML null: the empty string (valid for string keys). A
  // list of scalars is its items joined with commas (list keys; any other key refuses it).
  std::string text;
  if (value.IsSequence() && info->is_list) {
    for (const YAML::Node& item : value) {
      if (!item.IsScalar()) {
        return invalid("key '" + key + "' in " + where(file, key_node) +
                       " must be a list of single values, got " + node_kind(item) + " in it");
      }
      text += (text.empty() ? "" : ",") + item.Scalar();
    }
  } else if (value.IsMap() && info->is_object) {
    text = json_of(value);
  } else if (!value.IsNull() && !value.IsScalar()) {
    return invalid("key '" + key + "' in " + where(file, key_node) +
                   " must be a single value, got " + node_kind(value));
  } else {
    text = value.IsNull() ? "" : value.Scalar();
  }
  if (status s = set_config_key(config, key, text); !s) {
    return invalid(s.err().message + " (in " + where(file, key_node) + ")");
  }
  return status::success();
}

}  // namespace

result<server_config> load_server_config(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return make_error(error_code::io_error, "cannot open config file " + file.string());
  std::stringstream text;
  text << in.rdbuf();
  YAML::Node root;
  try {
    root = YAML::Load(text.str());
  } catch (const YAML::Exception& e) {
    return invalid("config file " + file.string() + " is not valid YAML: " + e.what());
  }
  server_config config;
  if (root.IsNull()) return config;  // an empty file: the defaults
  if (!root.IsMap()) {
    return invalid("config file " + file.string() + " must be a map of keys to values, got " +
                   node_kind(root));
  }
  for (const auto& entry : root) {
    if (status s = apply_entry(config, file, entry.first, entry.second); !s) return s.err();
  }
  return config;
}

status validate(const server_config& config) {
  if (status s = validate(config.engine); !s) return s;
  if (config.host.empty()) return invalid("host must not be empty");
  for (const std::string& replica : config.replicas) {
    if (auto address = routing::parse_replica_address(replica); !address) {
      return invalid("replicas: " + address.err().message + "; expected \"local\" or HOST:PORT");
    }
  }
  if (!config.publish.empty()) {
    if (auto address = routing::parse_publish_address(config.publish); !address)
      return invalid("publish: " + address.err().message);
  }
  if (config.num_io_threads < 1) return invalid("num_io_threads must be at least 1");
  if (config.max_connections < 1) return invalid("max_connections must be at least 1");
  if (config.max_header_bytes < 1 || config.max_body_bytes < 1) {
    return invalid("max_header_bytes and max_body_bytes must be at least 1");
  }
  if (config.ws_max_message_bytes < 1 || config.ws_max_send_queue_bytes < 1) {
    return invalid("ws_max_message_bytes and ws_max_send_queue_bytes must be at least 1");
  }
  for (const auto& [key, value] : {std::pair{"read_timeout_s", config.read_timeout_s},
                                   std::pair{"idle_timeout_s", config.idle_timeout_s},
                                   std::pair{"ws_ping_interval_s", config.ws_ping_interval_s}}) {
    if (!(value > 0.0)) return invalid(std::string(key) + " must be greater than 0");
  }
  if (!(config.shutdown_timeout_s >= 0.0)) return invalid("shutdown_timeout_s must be at least 0");
  // The choice keys' own checks, for configs built in code rather than parsed (the engine's
  // validate() has checked dtype and gpu_memory_utilization).
  if (config.enable_auto_tool_choice && config.tool_call_parser.empty()) {
    return invalid("enable_auto_tool_choice needs tool_call_parser (which format to parse)");
  }
  for (const char* key : {"log_level", "load_format", "backend", "reasoning_parser",
                          "tool_call_parser", "pooling_type"}) {
    auto value = get_config_key(config, key);
    server_config scratch;
    if (status s = set_config_key(scratch, key, *value); !s) return s;
  }
  return status::success();
}

}  // namespace pagedserve::net
