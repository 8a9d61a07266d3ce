// The playground's files as the server answers them (net/http/static_files.h): the embedded
// bytes against the files in web/static on disk, the caching headers, If-None-Match (RFC
// 9110 §13.1.2) and the page's security headers, parsed back with Beast's own parser.
#include "net/http/static_files.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "tests/net/http/response_parser.h"
#include "tests/support/test_paths.h"

namespace pagedserve::net {
namespace {

namespace http = boost::beast::http;
namespace fs = std::filesystem;
using testing::parse_response;

const fs::path static_dir = pagedserve::testing::source_dir() / "web" / "static";

std::string file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return std::move(bytes).str();
}

const web::web_asset& asset(std::string_view path) {
  const web::web_asset* found = web::find_asset(path);
  if (found == nullptr) throw std::runtime_error("no embedded asset " + std::string(path));
  return *found;
}

TEST(StaticFiles, EveryFileOfWebStaticIsEmbeddedByteForByte) {
  std::set<std::string> on_disk;
  for (const auto& entry : fs::recursive_directory_iterator(static_dir)) {
    if (!entry.is_regular_file()) continue;
    const std::string path = fs::relative(entry.path(), static_dir).generic_string();
    on_disk.insert(path);
    EXPECT_EQ(asset(path).body, file_bytes(entry.path())) << path;
  }
  std::set<std::string> embedded;
  std::size_t total = 0;
  for (const web::web_asset& a : web::embedded_assets()) {
    embedded.insert(std::string(a.path));
    total += a.body.size();
  }
  EXPECT_EQ(embedded, on_disk);
  EXPECT_EQ(web::total_asset_bytes(), total);
  EXPECT_TRUE(embedded.contains("index.html"));
}

TEST(StaticFiles, PlaygroundIsIndexAndUnknownPathsAreNothing) {
  EXPECT_EQ(asset_for_target(true, "")->path, "index.html");
  EXPECT_EQ(asset_for_target(false, "main.js")->path, "main.js");
  EXPECT_EQ(asset_for_target(false, "missing.js"), nullptr);
  EXPECT_EQ(asset_for_target(false, "../CMakeLists.txt"), nullptr);
  EXPECT_EQ(asset_for_target(false, ""), nullptr);
}

TEST(StaticFiles, MediaTypesByExtension) {
  EXPECT_EQ(asset("index.html").media_type, "text/html; charset=utf-8");
  EXPECT_EQ(asset("main.js").media_type, "text/javascript; charset=utf-8");  // RFC 9239
  EXPECT_EQ(asset("style.css").media_type, "text/css; charset=utf-8");
  EXPECT_EQ(asset("favicon.svg").media_type, "image/svg+xml");
}

TEST(StaticFiles, StrongEtagsDifferBetweenFiles) {
  std::set<std::string_view> tags;
  for (const web::web_asset& a : web::embedded_assets()) {
    ASSERT_EQ(a.etag.size(), 18u) << a.path;  // a quoted 16-digit hex string
    EXPECT_EQ(a.etag.front(), '"');
    EXPECT_EQ(a.etag.back(), '"');
    EXPECT_EQ(a.etag.find_first_not_of("0123456789abcdef", 1), 17u) << a.etag;
    tags.insert(a.etag);
  }
  EXPECT_EQ(tags.size(), web::embedded_assets().size());
}

TEST(StaticFiles, IfNoneMatchComparesWeaklyOverAList) {
  const web::web_asset& js = asset("main.js");
  const std::string tag(js.etag);
  EXPECT_TRUE(etag_matches(tag, js));
  EXPECT_TRUE(etag_matches("W/" + tag, js));
  EXPECT_TRUE(etag_matches("\"0000000000000000\", " + tag, js));
  EXPECT_TRUE(etag_matches("*", js));
  EXPECT_FALSE(etag_matches("", js));
  EXPECT_FALSE(etag_matches("\"0000000000000000\"", js));
  EXPECT_FALSE(etag_matches(std::string(asset("index.html").etag), js));
  EXPECT_FALSE(etag_matches(tag.substr(1, 16), js));  // unquoted is another tag
}

TEST(StaticFiles, PageCarriesItsSecurityHeaders) {
  const web::web_asset& page = asset("index.html");
  const auto res = parse_response(make_asset_response(response_head{200, true, {}}, page, false));
  EXPECT_EQ(res.result_int(), 200u);
  EXPECT_EQ(res.body(), page.body);
  EXPECT_EQ(res[http::field::content_type], page.media_type);
  EXPECT_EQ(res[http::field::etag], page.etag);
  EXPECT_EQ(res[http::field::cache_control], "no-cache");
  EXPECT_EQ(res["X-Content-Type-Options"], "nosniff");
  EXPECT_NE(res["Content-Security-Policy"].find("default-src 'self'"), std::string_view::npos);
  EXPECT_NE(res["Content-Security-Policy"].find("frame-ancestors 'none'"), std::string_view::npos);
  // Scripts and styles come from files only: no 'unsafe-inline' anywhere.
  EXPECT_EQ(res["Content-Security-Policy"].find("unsafe-inline"), std::string_view::npos);
  // Assets other than the page need no policy of their own.
  const auto js =
      parse_response(make_asset_response(response_head{200, true, {}}, asset("main.js"), false));
  EXPECT_EQ(js["Content-Security-Policy"], "");
}

TEST(StaticFiles, NotModifiedHasTheTagAndNoBody) {
  const web::web_asset& css = asset("style.css");
  const std::string bytes = make_asset_response(response_head{200, false, {}}, css, true);
  EXPECT_EQ(bytes.find(css.body.substr(0, 40)), std::string::npos);
  const auto res = parse_response(bytes);
  EXPECT_EQ(res.result_int(), 304u);
  EXPECT_EQ(res[http::field::etag], css.etag);
  EXPECT_TRUE(res.body().empty());
  EXPECT_FALSE(res.keep_alive());
}

TEST(StaticFiles, HeadGetsTheLengthWithoutTheBody) {
  const web::web_asset& js = asset("main.js");
  response_head head{200, true, {}};
  head.head_only = true;
  const std::string bytes = make_asset_response(head, js, false);
  EXPECT_TRUE(bytes.ends_with("\r\n\r\n"));
  const auto res = parse_response(bytes, true);
  EXPECT_EQ(res[http::field::content_length], std::to_string(js.body.size()));
}

}  // namespace
}  // namespace pagedserve::net
