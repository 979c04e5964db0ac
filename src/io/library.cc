#include "io/library.h"

#include <dlfcn.h>

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

}  // namespace trtlens
