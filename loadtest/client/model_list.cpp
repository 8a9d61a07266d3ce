// fetch_first_model_id (declared in load_driver.h): GET /v1/models on its own io_context.

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>
#include <chrono>

#include "loadtest/client/load_driver.h"

namespace pagedserve::loadtest {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using tcp = asio::ip::tcp;

// The exchange, synchronous in effect: each step runs the io_context until it completes, so
// the stream's timer bounds every step.
result<http::response<http::string_body>> get_models(const server_url& server,
                                                     const std::optional<std::string>& api_key,
                                                     double timeout_s) {
  asio::io_context io;
  tcp::resolver resolver(io);
  beast::error_code ec;
  const tcp::resolver::results_type endpoints = resolver.resolve(server.host, server.port, ec);
  if (ec) {
    return make_error(error_code::unavailable, "resolve " + server.host + ": " + ec.message());
  }
  beast::tcp_stream stream(io);
  stream.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(timeout_s)));
  http::request<http::empty_body> request{http::verb::get, "/v1/models", 11};
  request.set(http::field::host, server.host_port());
  request.set(http::field::user_agent, "pagedserve-bench");
  if (api_key) {
    request.set(http::field::authorization, "Bearer " + *api_key);
  }
  beast::flat_buffer buffer;
  http::response<http::string_body> response;
  stream.async_connect(endpoints, [&](beast::error_code connect_ec, const tcp::endpoint&) {
    if ((ec = connect_ec)) {
      return;
    }
    http::async_write(stream, request, [&](beast::error_code write_ec, std::size_t) {
      if ((ec = write_ec)) {
        return;
      }
      http::async_read(stream, buffer, response,
                       [&](beast::error_code read_ec, std::size_t) { ec = read_ec; });
    });
  });
  io.run();
  if (ec) {
    return make_error(error_code::unavailable,
                      "GET " + server.to_string() + "/v1/models: " + ec.message());
  }
  return response;
}

}  // namespace

result<std::string> fetch_first_model_id(const server_url& server,
                                         const std::optional<std::string>& api_key,
                                         double timeout_s) {
  result<http::response<http::string_body>> response = get_models(server, api_key, timeout_s);
  if (!response.ok()) {
    return response.err();
  }
  const std::string where = "GET " + server.to_string() + "/v1/models";
  if (response->result_int() != 200) {
    return make_error(error_code::unavailable, where + " answered " +
                                                   std::to_string(response->result_int()) + ": " +
                                                   response->body().substr(0, 500));
  }
  boost::system::error_code ec;
  const json::value parsed = json::parse(response->body(), ec);
  const json::object* object = ec ? nullptr : parsed.if_object();
  const json::value* data = object != nullptr ? object->if_contains("data") : nullptr;
  if (data == nullptr || !data->is_array() || data->get_array().empty() ||
      !data->get_array()[0].is_object()) {
    return make_error(error_code::corrupt_data,
                      where + " did not list a model: " + response->body().substr(0, 500));
  }
  const json::value* id = data->get_array()[0].get_object().if_contains("id");
  if (id == nullptr || !id->is_string()) {
    return make_error(error_code::corrupt_data, where + ": the first model has no string id");
  }
  return std::string(id->get_string());
}

}  // namespace pagedserve::loadtest
