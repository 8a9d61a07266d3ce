#pragma once
// serve_args: the command line of `pagedserve serve`:
//   pagedserve serve [--config FILE] [--<key-with-dashes> VALUE | --<key>=VALUE ...]
// One flag per configuration key (config_keys(): key max_num_seqs is --max-num-seqs).
// Boolean keys also take a bare --flag (true) and --no-flag (false). The file is read first,
// wherever --config appears; the flags then apply in order, so the last one wins.

#include <span>
#include <string>
#include <string_view>

#include "common/result.h"
#include "net/config/server_config.h"

namespace pagedserve::net {

struct serve_args {
  server_config config;
  bool help = false;  // --help / -h: print serve_usage() and exit
};

// args: everything after "serve". Errors name the flag (or the key and file); the config is
// validated (validate()) unless help was asked for.
[[nodiscard]] result<serve_args> parse_serve_args(std::span<const std::string_view> args);

// --help text: every flag with its description and default.
[[nodiscard]] std::string serve_usage();

// key max_num_seqs <-> flag name max-num-seqs (common/config_key.h).
using pagedserve::flag_name;

}  // namespace pagedserve::net
