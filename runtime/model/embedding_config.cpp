#include "runtime/model/embedding_config.h"

#include <string>
#include <utility>

#include "runtime/model/json_fields.h"

namespace pagedserve {
namespace {

constexpr std::string_view k_pooling_module = "sentence_transformers.models.Pooling";

// The Pooling module's folder from modules.json, if the folder lists one.
result<std::optional<std::filesystem::path>> pooling_folder(const std::filesystem::path& dir) {
  const std::filesystem::path modules = dir / "modules.json";
  std::error_code ec;
  if (!std::filesystem::exists(modules, ec)) return std::optional<std::filesystem::path>{};
  auto list = detail::read_json_file(modules);
  if (!list) return list.err();
  if (!list->is_array()) {
    return make_error(error_code::corrupt_data, "modules.json: expected a list of modules");
  }
  for (const boost::json::value& m : list->get_array()) {
    if (!m.is_object()) continue;
    const boost::json::value* type = m.get_object().if_contains("type");
    const boost::json::value* path = m.get_object().if_contains("path");
    if (type == nullptr || !type->is_string() || type->get_string() != k_pooling_module) continue;
    // Inside the folder only: no "..", and no absolute path (which `dir /` would keep whole).
    if (path == nullptr || !path->is_string() ||
        std::string_view(path->get_string()).find("..") != std::string_view::npos ||
        std::filesystem::path(std::string(path->get_string())).is_absolute()) {
      return make_error(error_code::corrupt_data, "modules.json: the Pooling module's path");
    }
    return std::optional<std::filesystem::path>(dir / std::string(path->get_string()));
  }
  return std::optional<std::filesystem::path>{};
}

result<std::optional<pooling_type>> declared_pooling(const std::filesystem::path& folder) {
  auto object = detail::read_json_object_file(folder / "config.json");
  if (!object) return object.err();
  detail::json_fields fields(*object, (folder.filename() / "config.json").string());
  pooling_type found = pooling_type::last;
  int modes = 0;
  bool supported = true;
  const std::pair<std::string_view, pooling_type> k_modes[] = {
      {"pooling_mode_lasttoken", pooling_type::last},
      {"pooling_mode_mean_tokens", pooling_type::mean},
      {"pooling_mode_cls_token", pooling_type::cls}};
  for (const auto& [key, type] : k_modes) {
    if (fields.bool_or(key, false)) {
      found = type;
      ++modes;
    }
  }
  for (const std::string_view other :
       {"pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens",
        "pooling_mode_weightedmean_tokens"}) {
    if (fields.bool_or(other, false)) {
      ++modes;
      supported = false;
    }
  }
  if (!fields.ok()) return fields.first_error();
  if (modes != 1 || !supported) {
    return make_error(error_code::unsupported,
                      fields.source() +
                          ": exactly one of pooling_mode_lasttoken, "
                          "pooling_mode_mean_tokens, pooling_mode_cls_token must be "
                          "set (other modes are not served)");
  }
  return std::optional<pooling_type>(found);
}

}  // namespace

result<embedding_config> load_embedding_config(const std::filesystem::path& dir) {
  embedding_config out;
  auto folder = pooling_folder(dir);
  if (!folder) return folder.err();
  if (*folder) {
    auto pooling = declared_pooling(**folder);
    if (!pooling) return pooling.err();
    out.pooling = *pooling;
  }
  auto config = detail::read_json_object_file(dir / "config.json");
  if (!config) return out;  // model_config reports a missing or broken config.json
  detail::json_fields fields(*config, "config.json");
  out.is_matryoshka = fields.bool_or("is_matryoshka", false);
  for (const std::int64_t d : fields.int_or_int_list("matryoshka_dimensions")) {
    if (d < 1 || d > (1 << 20)) {
      return make_error(error_code::corrupt_data,
                        "config.json: matryoshka_dimensions must hold "
                        "positive sizes");
    }
    out.matryoshka_dimensions.push_back(static_cast<std::uint32_t>(d));
  }
  if (!out.matryoshka_dimensions.empty()) out.is_matryoshka = true;
  if (!fields.ok()) return fields.first_error();
  return out;
}

}  // namespace pagedserve
