#include "runtime/eval/eval_workload.h"

#include <boost/json.hpp>
#include <fstream>

namespace pagedserve::eval {
namespace {

error line_error(std::size_t line_number, const std::string& what) {
  return make_error(error_code::invalid_argument,
                    "workload line " + std::to_string(line_number) + ": " + what);
}

result<std::vector<std::int64_t>> read_token_ids(const boost::json::value& value,
                                                 std::size_t line_number) {
  const auto* array = value.if_array();
  if (array == nullptr) return line_error(line_number, "\"prompt_token_ids\" must be an array");
  if (array->empty()) return line_error(line_number, "\"prompt_token_ids\" is empty");
  std::vector<std::int64_t> ids;
  ids.reserve(array->size());
  for (const boost::json::value& id : *array) {
    if (id.is_int64()) {
      ids.push_back(id.get_int64());
    } else if (id.is_uint64()) {  // above INT64_MAX: outside any vocabulary, kept as such
      ids.push_back(INT64_MAX);
    } else {
      return line_error(line_number, "\"prompt_token_ids\" must hold integers, found " +
                                         boost::json::serialize(id));
    }
  }
  return ids;
}

result<workload_line> parse_line(const std::string& text, std::size_t line_number) {
  boost::system::error_code ec;
  const boost::json::value value = boost::json::parse(text, ec);
  if (ec) return line_error(line_number, "not valid JSON (" + ec.message() + ")");
  const auto* obj = value.if_object();
  if (obj == nullptr) return line_error(line_number, "expected a JSON object");
  const auto* ids = obj->if_contains("prompt_token_ids");
  const auto* str = obj->if_contains("text");
  if ((ids == nullptr) == (str == nullptr)) {
    return line_error(line_number, "expected exactly one of \"prompt_token_ids\" and \"text\"");
  }
  workload_line line;
  line.line_number = line_number;
  if (ids != nullptr) {
    auto parsed = read_token_ids(*ids, line_number);
    if (!parsed) return parsed.err();
    line.token_ids = std::move(*parsed);
    return line;
  }
  if (!str->is_string()) return line_error(line_number, "\"text\" must be a string");
  if (str->get_string().empty()) return line_error(line_number, "\"text\" is empty");
  line.text = std::string(str->get_string());
  return line;
}

bool is_blank(const std::string& line) {
  return line.find_first_not_of(" \t\r") == std::string::npos;
}

}  // namespace

result<std::vector<workload_line>> parse_eval_workload(std::istream& in,
                                                       std::optional<std::size_t> max_lines) {
  std::vector<workload_line> lines;
  std::string text;
  for (std::size_t line_number = 1; std::getline(in, text); ++line_number) {
    if (max_lines && lines.size() >= *max_lines) break;
    if (is_blank(text)) continue;
    auto line = parse_line(text, line_number);
    if (!line) return line.err();
    lines.push_back(std::move(*line));
  }
  if (lines.empty()) {
    return make_error(error_code::invalid_argument, "the workload has no lines to score");
  }
  return lines;
}

result<std::vector<workload_line>> read_eval_workload(const std::filesystem::path& path,
                                                      std::optional<std::size_t> max_lines) {
  std::ifstream in(path);
  if (!in) return make_error(error_code::not_found, "cannot open the workload " + path.string());
  auto lines = parse_eval_workload(in, max_lines);
  if (!lines) return make_error(lines.err().code, path.string() + ": " + lines.err().message);
  return lines;
}

}  // namespace pagedserve::eval
