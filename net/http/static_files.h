#pragma once
// static_files: the answers to GET / and GET /ui/{path}, the playground's embedded files
// (web/web_assets.h). Each carries a strong ETag and `Cache-Control: no-cache`, so a browser
// revalidates and a matching If-None-Match gets a 304 without the body. The page itself is
// sent with a Content-Security-Policy that allows only this origin (scripts, styles, the
// WebSocket) and no framing.

#include <string>
#include <string_view>

#include "net/http/http_responses.h"
#include "web/web_assets.h"

namespace pagedserve::net {

// The asset for a request target's route: "index.html" for the playground, the named file
// under /ui/; nullptr when there is none.
[[nodiscard]] const web::web_asset* asset_for_target(bool playground, std::string_view ui_path);

// True when an If-None-Match header value names the asset's ETag (or is "*").
[[nodiscard]] bool etag_matches(std::string_view if_none_match, const web::web_asset& asset);

// 200 with the file, or 304 with its ETag alone when not_modified.
[[nodiscard]] std::string make_asset_response(const response_head& head,
                                              const web::web_asset& asset, bool not_modified);

}  // namespace pagedserve::net
