#include "output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace tcgen::cli {

namespace {

[[noreturn]] void io_fail(std::string_view option, const std::string& path, const std::string& why) {
  throw IoError(std::string(option), path, why);
}

std::string reason() { return std::strerror(errno); }

// Writes all of bytes to fd, then fsyncs where the file supports it; false with errno set on failure.
bool write_all(int fd, std::string_view bytes) {
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

void check_input_file(std::string_view option, const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) io_fail(option, path, "expected a readable file (" + reason() + ")");
  if (S_ISDIR(st.st_mode)) io_fail(option, path, "expected a file, not a directory");
  if (::access(path.c_str(), R_OK) != 0) io_fail(option, path, "expected a readable file (" + reason() + ")");
}

void check_output_path(std::string_view option, const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) io_fail(option, path, "expected a file to write, not a directory");
    if (::access(path.c_str(), W_OK) != 0) io_fail(option, path, "expected a writable file (" + reason() + ")");
    return;
  }
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  const std::string d = dir.empty() ? "." : dir.string();
  if (::stat(d.c_str(), &st) != 0)
    io_fail(option, path, "expected a path in an existing directory (" + d + " does not exist)");
  if (!S_ISDIR(st.st_mode)) io_fail(option, path, "expected a path in a directory (" + d + " is a file, not a directory)");
  if (::access(d.c_str(), W_OK) != 0) io_fail(option, path, "expected a path in a writable directory (" + d + ": " + reason() + ")");
}

void write_output(std::string_view option, const std::string& path, std::string_view bytes) {
  struct stat st {};
  const bool special = ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
  if (special) {  // a device or pipe: in place
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) io_fail(option, path, "expected a file that can be opened for writing (" + reason() + ")");
    const bool ok = write_all(fd, bytes);
    const std::string why = reason();
    if (::close(fd) != 0 || !ok) io_fail(option, path, "expected all " + std::to_string(bytes.size()) + " bytes written (" + why + ")");
    return;
  }
  check_output_path(option, path);
  std::string temp = path + ".tmp-XXXXXX";
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) io_fail(option, path, "expected a temporary file beside it (" + reason() + ")");
  const bool ok = write_all(fd, bytes) && ::fsync(fd) == 0;
  const std::string why = reason();
  const bool closed = ::close(fd) == 0;
  if (!ok || !closed) {
    ::unlink(temp.c_str());
    io_fail(option, path, "expected all " + std::to_string(bytes.size()) + " bytes written (" + why + ")");
  }
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::chmod(temp.c_str(), 0666 & ~mask);  // mkstemp made it 0600; a file tcgen writes is an ordinary one
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string rename_why = reason();
    ::unlink(temp.c_str());
    io_fail(option, path, "expected the finished file moved to its name (" + rename_why + ")");
  }
}

}  // namespace tcgen::cli
