#pragma once
// mapped_file: a whole file mapped read-only into memory, unmapped when the last owner goes.

#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>

#include "common/result.h"

namespace pagedserve {

class mapped_file {
 public:
  // Errors name the path; an empty file maps to an empty span (mmap refuses length 0).
  [[nodiscard]] static result<std::shared_ptr<const mapped_file>> open(
      const std::filesystem::path& path);

  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  ~mapped_file();

  [[nodiscard]] std::span<const std::byte> bytes() const { return {data_, size_}; }

 private:
  mapped_file(const std::byte* data, std::size_t size) : data_(data), size_(size) {}

  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace pagedserve
