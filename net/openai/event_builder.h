#pragma once
// event_builder: what turns one API call's engine events into its response: the chat and
// completion shapes (response_builder.h, which the Responses and Messages APIs follow
// through their chat_dialect) or the embeddings list (embedding_builder.h). One owner (the
// session's strand) feeds it the events of each prompt in the order the engine sent them.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "api/engine_events.h"

namespace pagedserve::net {

class event_builder {
 public:
  virtual ~event_builder() = default;
  // An event of prompt `prompt_index`; streaming builders append SSE payloads.
  virtual void on_chunk(std::size_t prompt_index, const token_chunk& chunk,
                        std::vector<std::string>& payloads) = 0;
  virtual void on_final(std::size_t prompt_index, const request_final& final,
                        std::vector<std::string>& payloads) = 0;
  // True once every prompt's every completion has had its final.
  [[nodiscard]] virtual bool done() const = 0;
  // Streaming: the closing payloads. Otherwise: one payload, the whole body. Called once.
  [[nodiscard]] virtual std::vector<std::string> finish() = 0;
  // The first completion that ended with finish_reason::error: its message.
  [[nodiscard]] virtual const std::optional<std::string>& error_message() const = 0;
};

}  // namespace pagedserve::net
