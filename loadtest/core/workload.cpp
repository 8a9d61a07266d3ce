#include "loadtest/core/workload.h"

#include <boost/json.hpp>
#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <utility>

namespace pagedserve::loadtest {

namespace {

// Uniform integer in [lo, hi] by rejection: the same stream of engine outputs gives the same
// value on every standard library (std::uniform_int_distribution does not promise that).
std::uint64_t uniform_between(std::mt19937_64& rng, std::uint64_t lo, std::uint64_t hi) {
  const std::uint64_t span = hi - lo;
  if (span == std::numeric_limits<std::uint64_t>::max()) {
    return rng();
  }
  const std::uint64_t n = span + 1;
  // The largest multiple of n that fits: values at or above it would bias the remainder.
  const std::uint64_t limit =
      std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % n;
  std::uint64_t x = rng();
  while (x >= limit) {
    x = rng();
  }
  return lo + x % n;
}

std::vector<token_id> random_ids(std::mt19937_64& rng, std::size_t count,
                                 const token_id_range& ids) {
  std::vector<token_id> out(count);
  const auto lo = static_cast<std::uint64_t>(ids.first);
  const auto hi = static_cast<std::uint64_t>(ids.last) - 1;
  for (auto& id : out) {
    id = static_cast<token_id>(uniform_between(rng, lo, hi));
  }
  return out;
}

status check_ids(const token_id_range& ids) {
  if (ids.first < 0 || ids.first >= ids.last) {
    return make_error(error_code::invalid_argument, "token id range [" + std::to_string(ids.first) +
                                                        ", " + std::to_string(ids.last) +
                                                        ") is empty or negative");
  }
  return {};
}

// vLLM's bounds: [int(len * (1 - r)), int(len * (1 + r))], the low end at least 1.
struct length_bounds {
  std::uint64_t low = 1;
  std::uint64_t high = 1;
};

length_bounds bounds_of(std::uint32_t len, double range_ratio) {
  const auto low = static_cast<std::uint64_t>(static_cast<double>(len) * (1.0 - range_ratio));
  const auto high = static_cast<std::uint64_t>(static_cast<double>(len) * (1.0 + range_ratio));
  length_bounds b{std::max<std::uint64_t>(low, 1), std::max<std::uint64_t>(high, 1)};
  return b;
}

std::string line_error(const std::filesystem::path& path, std::size_t line_no,
                       const std::string& what) {
  return path.string() + ":" + std::to_string(line_no) + ": " + what;
}

// One JSONL line to a request; an error message (without the location) when malformed.
result<bench_request> parse_line(const std::string& line) {
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(line, ec);
  if (ec) {
    return make_error(error_code::invalid_argument, "bad JSON: " + ec.message());
  }
  const auto* obj = v.if_object();
  if (obj == nullptr) {
    return make_error(error_code::invalid_argument, "not a JSON object");
  }
  bench_request req;
  if (const auto* ids = obj->if_contains("prompt_token_ids")) {
    const auto* arr = ids->if_array();
    if (arr == nullptr || arr->empty()) {
      return make_error(error_code::invalid_argument,
                        "prompt_token_ids must be a non-empty array of token ids");
    }
    for (const auto& id : *arr) {
      if (!id.is_int64() || id.as_int64() < 0 ||
          id.as_int64() > std::numeric_limits<token_id>::max()) {
        return make_error(
            error_code::invalid_argument,
            "prompt_token_ids holds " + boost::json::serialize(id) + ", not a token id");
      }
      req.prompt_token_ids.push_back(static_cast<token_id>(id.as_int64()));
    }
  } else if (const auto* text = obj->if_contains("prompt")) {
    if (!text->is_string() || text->as_string().empty()) {
      return make_error(error_code::invalid_argument, "prompt must be a non-empty string");
    }
    req.prompt_text = std::string(text->as_string());
  } else {
    return make_error(error_code::invalid_argument, "needs prompt_token_ids or prompt");
  }
  const auto* max_tokens = obj->if_contains("max_tokens");
  if (max_tokens == nullptr) {
    return make_error(error_code::invalid_argument, "needs max_tokens");
  }
  if (!max_tokens->is_int64() || max_tokens->as_int64() < 1 ||
      max_tokens->as_int64() > std::numeric_limits<std::uint32_t>::max()) {
    return make_error(error_code::invalid_argument, "max_tokens must be a positive integer");
  }
  req.max_tokens = static_cast<std::uint32_t>(max_tokens->as_int64());
  return req;
}

// Keeps at most `keep` bytes of UTF-8 text without splitting a character.
void truncate_utf8(std::string& text, std::size_t keep) {
  if (keep >= text.size()) {
    return;
  }
  const auto continues = [&](std::size_t i) {
    return i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0U) == 0x80U;
  };
  while (keep > 0 && continues(keep)) {
    --keep;
  }
  if (keep == 0) {  // the first character is longer than `keep`: keep it whole
    keep = 1;
    while (continues(keep)) {
      ++keep;
    }
  }
  text.resize(keep);
}

std::size_t scaled(std::size_t n, double scale) {
  return std::max<std::size_t>(1, static_cast<std::size_t>(static_cast<double>(n) * scale));
}

}  // namespace

result<std::vector<bench_request>> load_jsonl_workload(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) {
    return make_error(error_code::not_found, "cannot read workload file " + path.string());
  }
  std::vector<bench_request> reqs;
  std::string line;
  std::size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) {
      continue;
    }
    auto req = parse_line(line);
    if (!req) {
      return make_error(error_code::invalid_argument, line_error(path, line_no, req.err().message));
    }
    reqs.push_back(std::move(req).value());
  }
  if (in.bad()) {
    return make_error(error_code::io_error, "reading workload file " + path.string() + " failed");
  }
  return reqs;
}

result<std::vector<bench_request>> make_random_workload(const random_workload_spec& spec,
                                                        std::uint64_t seed) {
  if (auto s = check_ids(spec.ids); !s) {
    return s.err();
  }
  if (!(spec.range_ratio >= 0.0 && spec.range_ratio < 1.0)) {
    return make_error(error_code::invalid_argument, "range_ratio must be in [0, 1)");
  }
  if (spec.num_requests == 0 || spec.input_len == 0 || spec.output_len == 0) {
    return make_error(error_code::invalid_argument,
                      "random workload needs num_requests, input_len and output_len > 0");
  }
  std::mt19937_64 rng(seed);
  const std::vector<token_id> prefix = random_ids(rng, spec.prefix_len, spec.ids);
  const length_bounds in = bounds_of(spec.input_len, spec.range_ratio);
  const length_bounds out = bounds_of(spec.output_len, spec.range_ratio);
  std::vector<bench_request> reqs(spec.num_requests);
  for (auto& req : reqs) {
    const std::uint64_t input_len = uniform_between(rng, in.low, in.high);
    req.max_tokens = static_cast<std::uint32_t>(uniform_between(rng, out.low, out.high));
    req.prompt_token_ids = prefix;
    const std::vector<token_id> body = random_ids(rng, input_len, spec.ids);
    req.prompt_token_ids.insert(req.prompt_token_ids.end(), body.begin(), body.end());
  }
  return reqs;
}

result<std::vector<bench_request>> make_shared_prefix_workload(
    const shared_prefix_workload_spec& spec, std::uint64_t seed) {
  if (auto s = check_ids(spec.ids); !s) {
    return s.err();
  }
  if (spec.num_groups == 0 || spec.requests_per_group == 0 || spec.output_len == 0 ||
      spec.prefix_len + spec.suffix_len == 0) {
    return make_error(error_code::invalid_argument,
                      "shared-prefix workload needs groups, requests, a prompt and output_len");
  }
  std::mt19937_64 rng(seed);
  std::vector<std::vector<token_id>> prefixes;
  for (std::size_t g = 0; g < spec.num_groups; ++g) {
    prefixes.push_back(random_ids(rng, spec.prefix_len, spec.ids));
  }
  std::vector<bench_request> reqs(spec.num_groups * spec.requests_per_group);
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    auto& req = reqs[i];
    req.prompt_token_ids = prefixes[i % spec.num_groups];
    const std::vector<token_id> suffix = random_ids(rng, spec.suffix_len, spec.ids);
    req.prompt_token_ids.insert(req.prompt_token_ids.end(), suffix.begin(), suffix.end());
    req.max_tokens = spec.output_len;
  }
  return reqs;
}

result<std::vector<bench_request>> shape_workload(std::vector<bench_request> reqs,
                                                  const workload_shaping& shaping) {
  if (!(shaping.length_scale > 0.0 && shaping.length_scale <= 1.0)) {
    return make_error(error_code::invalid_argument, "length_scale must be in (0, 1]");
  }
  if (shaping.vocab_size && *shaping.vocab_size <= 0) {
    return make_error(error_code::invalid_argument, "vocab_size must be positive");
  }
  if (shaping.limit && *shaping.limit < reqs.size()) {
    reqs.resize(*shaping.limit);
  }
  if (reqs.empty()) {
    return make_error(error_code::invalid_argument, "the workload has no requests");
  }
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    auto& req = reqs[i];
    if (req.max_tokens == 0 || (req.prompt_token_ids.empty() && req.prompt_text.empty())) {
      return make_error(error_code::invalid_argument,
                        "request " + std::to_string(i) + " has an empty prompt or max_tokens 0");
    }
    if (shaping.length_scale < 1.0) {
      if (req.has_token_ids()) {
        req.prompt_token_ids.resize(scaled(req.prompt_token_ids.size(), shaping.length_scale));
      } else {
        truncate_utf8(req.prompt_text, scaled(req.prompt_text.size(), shaping.length_scale));
      }
      req.max_tokens = static_cast<std::uint32_t>(scaled(req.max_tokens, shaping.length_scale));
    }
    if (shaping.vocab_size) {
      for (auto& id : req.prompt_token_ids) {
        id = static_cast<token_id>(static_cast<std::int64_t>(id) % *shaping.vocab_size);
      }
    }
  }
  return reqs;
}

}  // namespace pagedserve::loadtest
