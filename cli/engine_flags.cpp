#include "cli/engine_flags.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "api/engine_keys.h"

namespace pagedserve::cli {
namespace {

const engine_key& key_named(std::string_view name) {
  const engine_key* key = find_engine_key(name);
  if (key == nullptr) {
    std::fprintf(stderr, "add_engine_flags: no engine key '%.*s'\n", static_cast<int>(name.size()),
                 name.data());
    std::abort();
  }
  return *key;
}

// Exit status 2, as every other bad command line of `pagedserve`.
[[noreturn]] void reject(const std::string& flag, const status& s) {
  throw CLI::ParseError(flag + ": " + s.err().message, 2);
}

void add_flag(CLI::App& app, engine_config& config, const engine_key& key) {
  const std::string flag = "--" + flag_name(key.info.key);
  if (key.info.is_boolean) {
    app.add_flag_function(
        flag,
        [&config, &key, flag](std::int64_t) {
          if (status s = key.set(config, "true"); !s) reject(flag, s);
        },
        key.info.description);
    return;
  }
  app.add_option_function<std::string>(
         flag,
         [&config, &key, flag](const std::string& value) {
           if (status s = key.set(config, value); !s) reject(flag, s);
         },
         key.info.description)
      ->default_str(key.get(config));
}

}  // namespace

void add_engine_flags(CLI::App& app, engine_config& config,
                      std::initializer_list<std::string_view> keys) {
  for (const std::string_view name : keys) add_flag(app, config, key_named(name));
}

}  // namespace pagedserve::cli
