#pragma once
// strong_id<Tag>: an integer id that does not mix with other ids or with plain ints.
// Absence is std::optional<strong_id<Tag>>, never a sentinel value.

#include <compare>
#include <cstdint>
#include <functional>

namespace pagedserve {

template <class Tag, class Rep = std::uint32_t>
class strong_id {
 public:
  using rep_type = Rep;

  constexpr strong_id() = default;
  constexpr explicit strong_id(Rep value) : value_(value) {}

  [[nodiscard]] constexpr Rep value() const { return value_; }

  friend constexpr auto operator<=>(strong_id, strong_id) = default;

 private:
  Rep value_{};
};

}  // namespace pagedserve

template <class Tag, class Rep>
struct std::hash<pagedserve::strong_id<Tag, Rep>> {
  std::size_t operator()(pagedserve::strong_id<Tag, Rep> id) const noexcept {
    return std::hash<Rep>{}(id.value());
  }
};
