#include "io/library.h"

#include <dlfcn.h>
#include <unistd.h>

namespace trtlens {

Library::Library(const std::string& file) {
  handle_ = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    const char* e = ::dlerror();
    error_ = e ? e : "cannot be loaded";
  }
}

void* Library::symbol(const char* name) {
  if (!handle_) return nullptr;
  ::dlerror();
  void* p = ::dlsym(handle_, name);
  if (!p) {
    const char* e = ::dlerror();
    error_ = e ? e : std::string(name) + ": no such symbol";
  }
  return p;
}

std::string binary_dir() {
  char exe[4096];
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return "";
  std::string path(exe, size_t(n));
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

}  // namespace trtlens
