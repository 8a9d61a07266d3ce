#pragma once
// result<T>: a value or an error with a message, for expected shortfalls (bad input files,
// unsupported configurations). Broken invariants abort instead; see STYLE.md.

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace pagedserve {

enum class error_code {
  invalid_argument,   // the caller's input is malformed or out of range
  not_found,          // a file, tensor or key that must exist does not
  unsupported,        // well-formed but not something we implement (names what is)
  corrupt_data,       // a file's content contradicts itself or its size
  io_error,           // the operating system refused (open, mmap, read)
  capacity_exceeded,  // the request can never fit (KV cache, max_model_len)
  overloaded,         // a limit is reached right now (queue full): retry later
  unavailable,        // shutting down: no new work accepted
  internal,           // a bug: should not happen
};

struct error {
  error_code code = error_code::internal;
  std::string message;
};

[[nodiscard]] inline error make_error(error_code code, std::string message) {
  return error{code, std::move(message)};
}

template <class T>
class [[nodiscard]] result {
 public:
  result(T value) : state_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  result(error err) : state_(std::move(err)) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(state_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(state_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(state_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  [[nodiscard]] const error& err() const {
    assert(!ok());
    return std::get<1>(state_);
  }

 private:
  std::variant<T, error> state_;
};

// status: result of an operation that produces no value.
class [[nodiscard]] status {
 public:
  status() = default;
  status(error err) : err_(std::move(err)), ok_(false) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] static status success() { return {}; }
  [[nodiscard]] bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  [[nodiscard]] const error& err() const {
    assert(!ok_);
    return err_;
  }

 private:
  error err_;
  bool ok_ = true;
};

}  // namespace pagedserve
