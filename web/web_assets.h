#pragma once
// web_assets: the playground's files (web/static), embedded in the binary at build time.
// Paths are relative to web/static ("index.html", "main.js"); the server maps "/" to
// index.html and "/ui/<path>" to the rest (net/http/router.h).

#include <span>
#include <string_view>

namespace pagedserve::web {

struct web_asset {
  std::string_view path;
  std::string_view media_type;  // the Content-Type value
  std::string_view etag;        // a strong ETag, quoted: "\"<16 hex digits of SHA-256>\""
  std::string_view body;
};

// Every embedded file, sorted by path.
[[nodiscard]] std::span<const web_asset> embedded_assets();
// The file at `path`, or nullptr.
[[nodiscard]] const web_asset* find_asset(std::string_view path);
// The bytes of every file together: the page weight a first visit downloads at most.
[[nodiscard]] std::size_t total_asset_bytes();

}  // namespace pagedserve::web
