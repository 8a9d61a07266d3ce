#include "net/http/static_files.h"

#include "net/http/header_list.h"

#include <sstream>

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

namespace pagedserve::net {
namespace {

namespace http = boost::beast::http;

// 'self' covers the page's own ws:// and wss:// origin (CSP Level 3 §6.7.2.8).
constexpr std::string_view page_policy =
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'";

}  // namespace

const web::web_asset* asset_for_target(bool playground, std::string_view ui_path) {
  return web::find_asset(playground ? std::string_view("index.html") : ui_path);
}

bool etag_matches(std::string_view if_none_match, const web::web_asset& asset) {
  for (std::string_view tag : list_elements(if_none_match)) {
    if (tag.substr(0, 2) == "W/") tag.remove_prefix(2);  // If-None-Match compares weakly
    if (tag == "*" || tag == asset.etag) return true;
  }
  return false;
}

std::string make_asset_response(const response_head& head, const web::web_asset& asset,
                                bool not_modified) {
  http::response<http::string_body> res{
      not_modified ? http::status::not_modified : http::status::ok, 11};
  res.set(http::field::server, "pagedserve");
  res.set(http::field::etag, asset.etag);
  res.set(http::field::cache_control, "no-cache");
  res.keep_alive(head.keep_alive);
  std::ostringstream out;
  if (not_modified) {
    out << res.base();  // a 304 has no body and no Content-Length to announce one
    return std::move(out).str();
  }
  res.set(http::field::content_type, asset.media_type);
  res.set("X-Content-Type-Options", "nosniff");
  if (asset.path == "index.html") {
    res.set("Content-Security-Policy", page_policy);
    res.set("Referrer-Policy", "no-referrer");
  }
  res.body() = std::string(asset.body);
  res.prepare_payload();
  if (head.head_only) {
    out << res.base();
  } else {
    out << res;
  }
  return std::move(out).str();
}

}  // namespace pagedserve::net
