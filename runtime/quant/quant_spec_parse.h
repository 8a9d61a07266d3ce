#pragma once
// Internal to pagedserve_quant: the per-method readers behind parse_quant_spec and the
// checks they share. Each reader records its first problem in the json_fields it is given
// (messages "<source>: key '<path>' <what>"), and parse_quant_spec returns that problem.

#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/model/json_fields.h"
#include "runtime/quant/quant_spec.h"
#include "runtime/tokenizer/regex.h"

namespace pagedserve::quant::spec_parse {

using pagedserve::detail::json_fields;

// The largest group_size or block dimension accepted (docs/model-folder-limits.md): real
// checkpoints use 32 to 128; the cap keeps `(in + group - 1) / group` and the scale tables
// sized by it far from overflow.
inline constexpr std::int64_t max_group_size = 1 << 20;

[[nodiscard]] std::string lower(std::string_view text);

// An "re:" pattern of compressed-tensors as PCRE2 compiles it for Python's re.match:
// anchored at the start of the text, not at its end.
[[nodiscard]] inline std::string anchored_at_start(std::string_view pattern) {
  return "\\A(?:" + std::string(pattern) + ")";
}

// A value as a message shows it: 'text' for strings, JSON otherwise, cut at 80 characters.
[[nodiscard]] std::string describe(const boost::json::value& value);

// The value of `key`, or nullptr when it is absent or null.
[[nodiscard]] const boost::json::value* value_of(const boost::json::object& object,
                                                 std::string_view key);

// Refuses (unsupported) every key outside `known` whose value says something: a key we do
// not know may change how the weights are stored, so only null, false, "", [] and {} pass.
void refuse_unknown_keys(json_fields& fields, const boost::json::object& object,
                         std::span<const std::string_view> known);

// A list of strings; null or absent gives {}.
[[nodiscard]] std::vector<std::string> string_list(json_fields& fields,
                                                   const boost::json::object& object,
                                                   std::string_view key);

// [rows, cols] of positive integers (HF weight_block_size, compressed-tensors
// block_structure, which older writers spell "128x128").
[[nodiscard]] std::optional<std::pair<std::int64_t, std::int64_t>> block_shape(
    json_fields& fields, const boost::json::object& object, std::string_view key);

// One reader per quant_method; each fills `spec` past method and source.
void read_awq(json_fields& fields, const boost::json::object& config, quant_spec& spec);
void read_gptq(json_fields& fields, const boost::json::object& config, quant_spec& spec);
void read_fp8(json_fields& fields, const boost::json::object& config, quant_spec& spec);
void read_compressed_tensors(json_fields& fields, const boost::json::object& config,
                             quant_spec& spec);

}  // namespace pagedserve::quant::spec_parse
