#pragma once
// Files the tcgen program reads (checked to open), and the files it writes
// (--out, --lse, --svg, --save-inputs): checked before the
// work starts, and then written whole or not at all. A regular file is
// written beside its final name and renamed over it once every byte is on
// disk, so a failed write leaves no partial file under that name; a device
// or pipe (/dev/stdout, /dev/full) is written in place, its flush and close
// checked. Failures are IoError: the file, the system's reason, exit 3.
#include <string>
#include <string_view>

#include "tcgen/core/error.hpp"

namespace tcgen::cli {

// Input/output or environment trouble, as opposed to a bad request: tcgen exits 3.
class IoError : public Error {
 public:
  using Error::Error;
};

// Throws IoError when `path` (given to `option`) cannot be read: it is
// missing, unreadable or a directory. What is wrong inside a file is a bad
// request (tcgen::Error, exit 2); a file that cannot be opened is exit 3.
void check_input_file(std::string_view option, const std::string& path);

// Throws IoError when `path` (given to `option`) cannot be written: its
// directory is missing or not writable, or it is a directory itself.
void check_output_path(std::string_view option, const std::string& path);

// Writes `bytes` to `path` as described above; throws IoError naming the file.
void write_output(std::string_view option, const std::string& path, std::string_view bytes);

}  // namespace tcgen::cli
