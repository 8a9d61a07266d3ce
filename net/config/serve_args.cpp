#include "net/config/serve_args.h"

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace pagedserve::net {
namespace {

error invalid(std::string message) {
  return make_error(error_code::invalid_argument, std::move(message));
}

// One --flag with its value, before it is applied.
struct flag_setting {
  std::string flag;  // as written, for messages
  std::string key;
  std::string value;
};

const config_key_info* key_of_flag(std::string_view name) {
  for (const config_key_info& info : config_keys()) {
    if (flag_name(info.key) == name) return &info;
  }
  return nullptr;
}

struct parsed_line {
  std::optional<std::string> config_file;
  std::vector<flag_setting> settings;
  bool help = false;
};

// A bare boolean flag takes the next argument as its value only when that reads as a boolean.
bool is_bool_text(std::string_view text) {
  for (const char* word : {"true", "false", "yes", "no", "on", "off", "1", "0"}) {
    if (text == word) return true;
  }
  return false;
}

result<parsed_line> split(std::span<const std::string_view> args) {
  parsed_line line;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (arg == "--help" || arg == "-h") {
      line.help = true;
      continue;
    }
    if (!arg.starts_with("--") || arg.size() == 2) {
      return invalid("unexpected argument '" + std::string(arg) + "' (flags start with --)");
    }
    const std::size_t eq = arg.find('=');
    std::string name(arg.substr(2, eq == std::string_view::npos ? std::string_view::npos : eq - 2));
    std::optional<std::string> value;
    if (eq != std::string_view::npos) value = std::string(arg.substr(eq + 1));
    const std::string flag = "--" + name;

    const config_key_info* info = key_of_flag(name);
    bool negated = false;
    if (info == nullptr && name.starts_with("no-")) {
      info = key_of_flag(name.substr(3));
      negated = info != nullptr && info->is_boolean;
      if (!negated) info = nullptr;
    }
    if (name == "config") {
      if (!value && i + 1 < args.size()) value = std::string(args[++i]);
      if (!value || value->empty()) return invalid("--config needs a file");
      line.config_file = *value;
      continue;
    }
    if (info == nullptr) {
      return invalid("unknown option '" + flag + "' (pagedserve serve --help lists them)");
    }
    if (negated) {
      if (value) return invalid(flag + " takes no value");
      line.settings.push_back({flag, info->key, "false"});
      continue;
    }
    if (!value && info->is_boolean) {
      const bool next_is_value = i + 1 < args.size() && is_bool_text(args[i + 1]);
      value = next_is_value ? std::string(args[++i]) : "true";
    }
    if (!value) {
      if (i + 1 >= args.size()) return invalid(flag + " needs a value");
      value = std::string(args[++i]);
    }
    line.settings.push_back({flag, info->key, *value});
  }
  return line;
}

}  // namespace

result<serve_args> parse_serve_args(std::span<const std::string_view> args) {
  auto line = split(args);
  if (!line) return line.err();
  serve_args out;
  out.help = line->help;
  if (out.help) return out;
  if (line->config_file) {
    auto loaded = load_server_config(*line->config_file);
    if (!loaded) return loaded.err();
    out.config = std::move(*loaded);
  }
  for (const flag_setting& s : line->settings) {
    if (status st = set_config_key(out.config, s.key, s.value); !st) {
      return invalid(s.flag + ": " + st.err().message);
    }
  }
  // The secret stays out of `ps` and shell history when it comes from the environment.
  if (const char* secret = std::getenv("PAGEDSERVE_ENGINE_SECRET");
      secret != nullptr && out.config.engine_secret.empty()) {
    out.config.engine_secret = secret;
  }
  if (status st = validate(out.config); !st)
    return invalid("invalid configuration: " + st.err().message);
  return out;
}

std::string serve_usage() {
  std::string text =
      "usage: pagedserve serve [--config FILE] [--<key> VALUE ...]\n\n"
      "Serves the OpenAI-compatible API (/v1/completions, /v1/chat/completions, /v1/models),\n"
      "/metrics, /health and the WebSocket stream /v1/stream. Without --model it serves the\n"
      "built-in demo model (random weights). Flags override the file; config/default.yaml\n"
      "lists every key with its default.\n\n"
      "options:\n"
      "  --config FILE\n      YAML file of keys (config/default.yaml, config/examples/)\n"
      "  -h, --help\n      this text\n";
  const server_config defaults;
  for (const config_key_info& info : config_keys()) {
    const std::string value = get_config_key(defaults, info.key).value();
    text += "  --" + flag_name(info.key) + (info.is_boolean ? " [true|false]" : " VALUE") + "\n";
    text += "      " + info.description + " (default: " + (value.empty() ? "\"\"" : value) + ")\n";
  }
  return text;
}

}  // namespace pagedserve::net
