#include "runtime/model/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace pagedserve {
namespace {

error os_error(const std::filesystem::path& path, const char* what, int errnum) {
  const error_code code = errnum == ENOENT ? error_code::not_found : error_code::io_error;
  return make_error(code, path.string() + ": " + what + " failed (" + std::strerror(errnum) + ")");
}

}  // namespace

result<std::shared_ptr<const mapped_file>> mapped_file::open(const std::filesystem::path& path) {
  // O_NONBLOCK: a FIFO planted in a model folder must not block open(); it is refused as
  // not regular below (the flag changes nothing for regular files).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return os_error(path, "open", errno);
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int errnum = errno;
    ::close(fd);
    return os_error(path, "fstat", errnum);
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    return make_error(error_code::io_error, path.string() + ": not a regular file");
  }
  const auto size = static_cast<std::size_t>(info.st_size);
  void* address = nullptr;
  if (size != 0) {
    address = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (address == MAP_FAILED) {
      const int errnum = errno;
      ::close(fd);
      return os_error(path, "mmap", errnum);
    }
  }
  ::close(fd);  // the mapping stays valid without the descriptor
  return std::shared_ptr<const mapped_file>(
      new mapped_file(static_cast<const std::byte*>(address), size));
}

mapped_file::~mapped_file() {
  if (size_ != 0) ::munmap(const_cast<std::byte*>(data_), size_);
}

}  // namespace pagedserve
