#include "run_files.hpp"

#include <sys/stat.h>

#include <filesystem>

#include "args.hpp"
#include "output_file.hpp"
#include "tcgen/core/error.hpp"

namespace tcgen::cli {

namespace {

std::string dev_ino(const struct stat& st) { return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino); }

// The identity described in run_files.hpp; empty for what is left out (a
// device, a pipe, a directory, a path whose directory is missing: the
// readers and check_output_path refuse those themselves).
std::string identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) return S_ISREG(st.st_mode) ? dev_ino(st) : std::string();
  const std::filesystem::path p(path);
  const std::string dir = p.parent_path().empty() ? "." : p.parent_path().string();
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return {};
  return dev_ino(st) + "/" + p.filename().string();
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

void RunFiles::input(std::string_view option, const std::string& path) {
  if (!exists(path)) return;  // its reader names it (exit 3); no output can overwrite what is not there
  if (std::string id = identity(path); !id.empty()) inputs_.push_back({std::string(option), path, std::move(id)});
}

void RunFiles::output(std::string_view option, const std::string& path) {
  ++outputs_named_;
  check_output_path(option, path);  // before the work: a missing directory is not found after an hour's run
  const std::string field(option), id = identity(path);
  if (id.empty()) return;
  for (const Named& in : inputs_)
    if (in.id == id)
      fail(field.c_str(), path,
           "expected a file the run does not read: it is " + in.option + "'s " + in.path + ", which writing would overwrite");
  for (const Named& out : outputs_)
    if (out.id == id)
      fail(field.c_str(), path, "expected a file no other output writes: " + out.option + " writes " + out.path + " already");
  if (!force_ && exists(path)) fail(field.c_str(), path, "expected a new file: it exists (--force replaces it)");
  outputs_.push_back({field, path, id});
}

RunFiles guard_files(const Args& a, std::initializer_list<const char*> inputs, std::initializer_list<const char*> outputs) {
  RunFiles files(a.flag("force"));
  for (const char* o : inputs)
    if (a.has(o)) files.input(std::string("--") + o, a.text(o));
  for (const char* o : outputs)
    if (a.has(o)) files.output(std::string("--") + o, a.text(o));
  return files;
}

void check_force(const Args& a, const RunFiles& files, std::string_view outputs) {
  if (a.flag("force") && !files.any_output())
    fail("--force", "(given)", "expected an output whose existing file it replaces: " + std::string(outputs));
}

}  // namespace tcgen::cli
