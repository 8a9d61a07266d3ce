#pragma once
// response_store: the Responses API's stored responses (`store: true`, OpenAI's default),
// for GET /v1/responses/{id} and for a later request's previous_response_id. Bounded by a
// count and by bytes (the serialized response and conversation); the oldest go first, and
// an evicted or deleted id answers 404 as OpenAI's does for one it does not hold. Kept in
// memory only: a restart forgets every response. Thread-safe (every io thread uses it).

#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include <boost/json.hpp>

namespace pagedserve::net {

struct stored_response {
  boost::json::object response;     // what GET answers
  boost::json::array conversation;  // chat messages: the input so far and this output
};

class response_store {
 public:
  // The defaults are server_config's (responses_store_max_count and _max_bytes).
  response_store() : response_store(1024, 64ULL << 20U) {}
  response_store(std::uint64_t max_count, std::uint64_t max_bytes);

  // Stores (or replaces) `id`; older responses leave until both bounds hold. One larger than
  // max_bytes alone is not kept (a later lookup is a 404).
  void put(const std::string& id, stored_response value);
  [[nodiscard]] std::optional<stored_response> get(const std::string& id) const;
  bool erase(const std::string& id);  // false: not held

  [[nodiscard]] std::uint64_t size() const;
  [[nodiscard]] std::uint64_t bytes() const;

 private:
  struct held {
    stored_response value;
    std::uint64_t bytes = 0;
    std::list<std::string>::iterator age;
  };
  void erase_locked(std::unordered_map<std::string, held>::iterator it);

  const std::uint64_t max_count_;
  const std::uint64_t max_bytes_;
  mutable std::mutex mutex_;
  std::list<std::string> oldest_first_;
  std::unordered_map<std::string, held> held_;
  std::uint64_t bytes_ = 0;
};

}  // namespace pagedserve::net
