// http_session: GET / and GET /ui/{path}, the web playground (web/, static_files.h). Off
// with `ui: off` (404, as for any unknown path).

#include "net/http/http_session.h"
#include "net/http/static_files.h"

namespace pagedserve::net {

void http_session::handle_playground(route r) {
  const std::string_view target(request_.target().data(), request_.target().size());
  const web::web_asset* asset =
      ctx_.config.ui ? asset_for_target(r == route::playground, ui_asset_path_of(target)) : nullptr;
  if (asset == nullptr) {
    answer_error(not_found(ctx_.config.ui ? "no playground file " + printable_excerpt(target)
                                          : "the playground is off (ui: off)"));
    return;
  }
  const auto if_none_match = request_[http::field::if_none_match];
  const bool not_modified = etag_matches({if_none_match.data(), if_none_match.size()}, *asset);
  status_ = not_modified ? 304 : 200;
  ctx_.metrics.count_http_response(status_);
  enqueue(make_asset_response(response_head{status_, keep_alive_, {}, head_only_, {}}, *asset,
                              not_modified),
          true);
}

}  // namespace pagedserve::net
