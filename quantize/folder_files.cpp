#include "quantize/folder_files.h"

#include <array>
#include <fstream>
#include <sstream>
#include <string>

#include <boost/json.hpp>

namespace pagedserve::quantize {
namespace {

constexpr std::array<const char*, 4> side_files = {
    "tokenizer.json", "tokenizer_config.json", "generation_config.json", "special_tokens_map.json"};

status renamed(const std::filesystem::path& from, const std::filesystem::path& to) {
  std::error_code ec;
  std::filesystem::rename(from, to, ec);
  if (ec)
    return make_error(error_code::io_error, "cannot write " + to.string() + ": " + ec.message());
  return status::success();
}

}  // namespace

result<boost::json::object> read_config_object(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / "config.json";
  std::ifstream in(path);
  if (!in) return make_error(error_code::not_found, path.string() + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(text.str(), ec);
  if (ec || !value.is_object()) {
    return make_error(error_code::invalid_argument, path.string() + ": not a JSON object");
  }
  return std::move(value.as_object());
}

status write_config_object(const std::filesystem::path& dir, const boost::json::object& config) {
  const std::filesystem::path path = dir / "config.json";
  const std::filesystem::path partial = path.string() + ".partial";
  {
    std::ofstream out(partial, std::ios::trunc);
    out << boost::json::serialize(config) << '\n';
    if (!out.flush()) return make_error(error_code::io_error, "cannot write " + partial.string());
  }
  return renamed(partial, path);
}

status copy_side_files(const std::filesystem::path& from, const std::filesystem::path& to) {
  for (const char* name : side_files) {
    std::error_code ec;
    if (!std::filesystem::exists(from / name, ec)) continue;
    std::filesystem::copy_file(from / name, to / name,
                               std::filesystem::copy_options::overwrite_existing, ec);
    if (ec) {
      return make_error(error_code::io_error, "cannot copy " + (from / name).string() + " to " +
                                                  to.string() + ": " + ec.message());
    }
  }
  return status::success();
}

}  // namespace pagedserve::quantize
