#pragma once
// engine_flags: command-line flags made from the engine's key table
// (api/engine_keys.h), so `--block-size` or `--max-num-seqs` parse, check and
// describe themselves the same way in every command as in `pagedserve serve` and its YAML.
// A bad value ends the parse with exit status 2 and a message naming the flag.

#include <CLI/CLI.hpp>

#include <initializer_list>
#include <string_view>

#include "api/engine_config.h"

namespace pagedserve::cli {

// Adds `--<key with dashes>` for each of `keys` (engine key names, e.g. "max_num_seqs"),
// writing into `config`, whose values at this call are the defaults shown by --help. A
// boolean key is a bare flag (`--enforce-eager`). An unknown key is a programming error.
void add_engine_flags(CLI::App& app, engine_config& config,
                      std::initializer_list<std::string_view> keys);

}  // namespace pagedserve::cli
