#include "runtime/model/rope_parse.h"

#include <optional>
#include <string>

namespace pagedserve::detail {
namespace {

// The scaling-specific keys, read from whichever object carries the rope type.
void read_scaling(json_fields& scaling, const std::string& type, rope_config& rope) {
  if (type == "default") {
    rope.kind = rope_kind::standard;
  } else if (type == "linear") {
    rope.kind = rope_kind::linear;
    rope.factor = scaling.required_number("factor");
  } else if (type == "llama3") {
    rope.kind = rope_kind::llama3;
    rope.factor = scaling.required_number("factor");
    rope.low_freq_factor = scaling.required_number("low_freq_factor");
    rope.high_freq_factor = scaling.required_number("high_freq_factor");
    rope.original_max_position_embeddings =
        scaling.required_int("original_max_position_embeddings");
  } else {
    scaling.fail(error_code::unsupported, "rope_type",
                 "is '" + type + "', which is not supported (supported: default, linear, llama3)");
  }
}

// HF accepts the legacy "type" spelling next to "rope_type".
std::string rope_type_of(json_fields& scaling) {
  std::optional<std::string> type = scaling.optional_string("rope_type");
  if (!type) type = scaling.optional_string("type");
  return type.value_or("default");
}

}  // namespace

rope_config read_rope_config(json_fields& fields) {
  rope_config rope;
  if (const boost::json::object* params = fields.optional_object("rope_parameters")) {
    json_fields nested(*params, fields.source(), "rope_parameters.");
    rope.theta = nested.has("rope_theta") ? nested.required_number("rope_theta")
                                          : fields.number_or("rope_theta", rope.theta);
    read_scaling(nested, rope_type_of(nested), rope);
    fields.adopt(nested);
    return rope;
  }
  rope.theta = fields.number_or("rope_theta", rope.theta);
  if (const boost::json::object* scaling = fields.optional_object("rope_scaling")) {
    json_fields nested(*scaling, fields.source(), "rope_scaling.");
    read_scaling(nested, rope_type_of(nested), rope);
    fields.adopt(nested);
  }
  return rope;
}

}  // namespace pagedserve::detail
