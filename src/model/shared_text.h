// Text that many model objects hold the same of: a tensor's format string ("Channel major FP16
// format where channel % 8 == 0") is one of a handful per engine, held by thousands of tensors.
// Each distinct text is kept once for the life of the process and shared by pointer; it reads
// like a const std::string.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

namespace trtlens {

class SharedText {
 public:
  SharedText() = default;
  SharedText(std::string_view text) : p_(text.empty() ? nullptr : intern(text)) {}  // NOLINT
  SharedText(const std::string& text) : SharedText(std::string_view(text)) {}       // NOLINT
  SharedText(const char* text) : SharedText(std::string_view(text)) {}              // NOLINT

  const std::string& str() const { return p_ ? *p_ : empty_text(); }
  operator const std::string&() const { return str(); }  // NOLINT
  operator std::string_view() const { return str(); }    // NOLINT
  bool empty() const { return p_ == nullptr; }
  size_t size() const { return str().size(); }

  // Interned: equal texts share one pointer.
  friend bool operator==(const SharedText& a, const SharedText& b) { return a.p_ == b.p_; }
  friend bool operator!=(const SharedText& a, const SharedText& b) { return a.p_ != b.p_; }
  friend bool operator==(const SharedText& a, std::string_view b) { return a.str() == b; }
  friend bool operator!=(const SharedText& a, std::string_view b) { return a.str() != b; }
  friend bool operator==(const SharedText& a, const std::string& b) { return a.str() == b; }
  friend bool operator!=(const SharedText& a, const std::string& b) { return a.str() != b; }
  friend bool operator==(const SharedText& a, const char* b) { return a.str() == b; }
  friend bool operator!=(const SharedText& a, const char* b) { return a.str() != b; }
  friend std::string operator+(const std::string& a, const SharedText& b) { return a + b.str(); }
  friend std::string operator+(const SharedText& a, const std::string& b) { return a.str() + b; }
  friend std::string operator+(const char* a, const SharedText& b) { return a + b.str(); }
  friend std::string operator+(const SharedText& a, const char* b) { return a.str() + b; }
  friend std::ostream& operator<<(std::ostream& os, const SharedText& t) { return os << t.str(); }

 private:
  static const std::string* intern(std::string_view text);  // thread-safe
  static const std::string& empty_text();
  const std::string* p_ = nullptr;
};

}  // namespace trtlens
