#include "sim/workload.h"

#include <boost/json.hpp>
#include <fstream>
#include <string>
#include <utility>

namespace pagedserve::sim {

namespace {

namespace json = boost::json;

error bad_line(std::size_t line_number, const std::string& what) {
  return make_error(error_code::invalid_argument,
                    "workload line " + std::to_string(line_number) + ": " + what);
}

template <class Int>
std::optional<Int> as_int(const json::value& v) {
  if (v.is_int64() && std::in_range<Int>(v.as_int64())) return static_cast<Int>(v.as_int64());
  if (v.is_uint64() && std::in_range<Int>(v.as_uint64())) return static_cast<Int>(v.as_uint64());
  return std::nullopt;
}

}  // namespace

result<workload_request> parse_workload_line(std::string_view line, std::size_t line_number) {
  boost::system::error_code ec;
  const json::value doc = json::parse(json::string_view(line.data(), line.size()), ec);
  if (ec) return bad_line(line_number, "invalid JSON: " + ec.message());
  if (!doc.is_object()) return bad_line(line_number, "expected a JSON object");
  const json::object& obj = doc.as_object();

  workload_request request;
  const json::value* prompt = obj.if_contains("prompt_token_ids");
  if (prompt == nullptr || !prompt->is_array()) {
    return bad_line(line_number, "\"prompt_token_ids\" must be an array of token ids");
  }
  request.prompt_token_ids.reserve(prompt->as_array().size());
  for (const json::value& token : prompt->as_array()) {
    const auto id = as_int<token_id>(token);
    if (!id || *id < 0) return bad_line(line_number, "token ids must be non-negative integers");
    request.prompt_token_ids.push_back(*id);
  }
  if (const json::value* v = obj.if_contains("max_tokens")) {
    const auto max_tokens = as_int<std::uint32_t>(*v);
    if (!max_tokens) return bad_line(line_number, "\"max_tokens\" must be a non-negative integer");
    request.max_tokens = *max_tokens;
  }
  if (const json::value* v = obj.if_contains("arrival_s")) {
    if (!v->is_number()) return bad_line(line_number, "\"arrival_s\" must be a number");
    request.arrival_s = v->to_number<double>();
    if (*request.arrival_s < 0) return bad_line(line_number, "\"arrival_s\" must be >= 0");
  }
  if (const json::value* v = obj.if_contains("priority")) {
    const auto priority = as_int<std::int32_t>(*v);
    if (!priority) return bad_line(line_number, "\"priority\" must be a 32-bit integer");
    request.priority = *priority;
  }
  return request;
}

result<std::vector<workload_request>> load_workload(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return make_error(error_code::io_error, "cannot open workload " + path.string());
  std::vector<workload_request> requests;
  std::string line;
  for (std::size_t line_number = 1; std::getline(in, line); ++line_number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    result<workload_request> request = parse_workload_line(line, line_number);
    if (!request) return request.err();
    requests.push_back(std::move(request).value());
  }
  if (in.bad()) return make_error(error_code::io_error, "error reading workload " + path.string());
  return requests;
}

}  // namespace pagedserve::sim
