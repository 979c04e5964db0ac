// Shared libraries opened when first needed, for what only some inputs use: linked, a library
// costs every run its loading at start-up, which for the C++ and BIND_NOW libraries Debian
// ships is most of trtlens's start-up time.
#pragma once

#include <string>

namespace trtlens {

class Library {
 public:
  // Opens `file` (a SONAME such as "libarchive.so.13", or a path); `error()` says why not.
  // The library stays loaded until exit: what is taken from it may be called until then.
  explicit Library(const std::string& file);
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  bool ok() const { return handle_ != nullptr; }
  const std::string& error() const { return error_; }
  // Sets `f` to the named function; false (and `error()` set) when the library lacks it.
  template <class F>
  bool get(F*& f, const char* name) {
    f = reinterpret_cast<F*>(symbol(name));
    return f != nullptr;
  }

 private:
  void* symbol(const char* name);
  void* handle_ = nullptr;
  std::string error_;
};

// The running binary's directory ("" when /proc/self/exe cannot be read): where its own files
// (the ONNX module, installed grammar files) are looked for.
std::string binary_dir();

}  // namespace trtlens
