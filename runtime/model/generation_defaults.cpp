#include "runtime/model/generation_defaults.h"

#include <cmath>
#include <sstream>
#include <system_error>

#include "runtime/model/json_fields.h"

namespace pagedserve {
namespace {

// The key's value unless absent, null or transformers' default (vLLM takes the diff).
std::optional<double> differing(detail::json_fields& fields, const char* key,
                                std::optional<double> hf_default) {
  const std::optional<double> v = fields.optional_number(key);
  if (!v || (hf_default && *v == *hf_default)) return std::nullopt;
  return v;
}

error out_of_range(const std::filesystem::path& path, const char* key, const char* rule) {
  return make_error(error_code::invalid_argument,
                    path.string() + ": key '" + key + "' must be " + rule);
}

}  // namespace

result<generation_defaults> load_generation_defaults(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / "generation_config.json";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return generation_defaults{};
  result<boost::json::object> root = detail::read_json_object_file(path);
  if (!root) return root.err();
  detail::json_fields fields(*root, path.string());
  const auto temperature = differing(fields, "temperature", 1.0);
  const auto top_p = differing(fields, "top_p", 1.0);
  const auto top_k = differing(fields, "top_k", 50.0);
  const auto min_p = differing(fields, "min_p", std::nullopt);
  const auto repetition = differing(fields, "repetition_penalty", 1.0);
  if (!fields.ok()) return fields.first_error();
  if (temperature && !(*temperature >= 0.0 && std::isfinite(*temperature))) {
    return out_of_range(path, "temperature", "a finite number >= 0");
  }
  if (top_p && !(*top_p > 0.0 && *top_p <= 1.0)) return out_of_range(path, "top_p", "in (0, 1]");
  if (top_k && !(*top_k >= -1.0 && *top_k == std::floor(*top_k) && *top_k < 2147483647.0)) {
    return out_of_range(path, "top_k", "an integer >= -1");
  }
  if (min_p && !(*min_p >= 0.0 && *min_p <= 1.0)) return out_of_range(path, "min_p", "in [0, 1]");
  if (repetition && !(*repetition > 0.0 && std::isfinite(*repetition))) {
    return out_of_range(path, "repetition_penalty", "a finite number > 0");
  }
  generation_defaults d;
  if (temperature) d.temperature = static_cast<float>(*temperature);
  if (top_p) d.top_p = static_cast<float>(*top_p);
  if (top_k) d.top_k = static_cast<std::int32_t>(*top_k);
  if (min_p) d.min_p = static_cast<float>(*min_p);
  if (repetition) d.repetition_penalty = static_cast<float>(*repetition);
  return d;
}

}  // namespace pagedserve
