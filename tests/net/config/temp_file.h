#pragma once
// A file with given contents in the temporary directory, removed when the object goes.

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

namespace pagedserve::testing {

class temp_file {
 public:
  temp_file(const std::string& name, const std::string& contents) {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() / ("pagedserve-" + std::to_string(::getpid()) +
                                                      "-" + std::to_string(counter++) + "-" + name);
    std::ofstream(path_) << contents;
  }
  ~temp_file() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  temp_file(const temp_file&) = delete;
  temp_file& operator=(const temp_file&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace pagedserve::testing
