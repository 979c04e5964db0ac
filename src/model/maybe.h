// An optional number in the space of the number: std::optional<uint64_t> and
// std::optional<double> take 16 bytes for 8, and a layer carries a dozen of them (a tenth of
// its size in a million-row profile). The interface is std::optional's, so code reads the same.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>

namespace trtlens {

// "None" is a value the figure never takes: UINT64_MAX for byte counts (no engine holds 16 EiB),
// INT64_MIN for a count a model gives, a NaN with a payload no arithmetic produces for times
// (readers keep only finite times).
template <class T>
struct MaybeNone;
template <>
struct MaybeNone<uint64_t> {
  static uint64_t value() { return ~uint64_t(0); }
  static bool is(uint64_t v) { return v == ~uint64_t(0); }
};
template <>
struct MaybeNone<int64_t> {
  static int64_t value() { return INT64_MIN; }
  static bool is(int64_t v) { return v == INT64_MIN; }
};
template <>
struct MaybeNone<double> {
  static constexpr uint64_t bits = 0x7ff4dead0000beefULL;
  static double value() {
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }
  static bool is(double v) {
    uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    return b == bits;
  }
};

template <class T>
class Maybe {
 public:
  Maybe() noexcept : v_(MaybeNone<T>::value()) {}
  Maybe(std::nullopt_t) noexcept : Maybe() {}
  Maybe(T v) noexcept : v_(v) {}
  Maybe(const std::optional<T>& o) noexcept : v_(o.value_or(MaybeNone<T>::value())) {}
  // Another arithmetic type converts as std::optional<T>'s assignment would.
  template <class U, class = std::enable_if_t<std::is_arithmetic_v<U> && !std::is_same_v<U, T>>>
  Maybe(U v) noexcept : v_(T(v)) {}

  Maybe& operator=(std::nullopt_t) noexcept {
    reset();
    return *this;
  }
  bool has_value() const noexcept { return !MaybeNone<T>::is(v_); }
  explicit operator bool() const noexcept { return has_value(); }
  const T& operator*() const noexcept { return v_; }
  T& operator*() noexcept { return v_; }
  const T* operator->() const noexcept { return &v_; }
  const T& value() const {
    if (!has_value()) throw std::bad_optional_access();
    return v_;
  }
  T value_or(T other) const noexcept { return has_value() ? v_ : other; }
  void reset() noexcept { v_ = MaybeNone<T>::value(); }
  T& emplace(T v) noexcept { return v_ = v; }
  operator std::optional<T>() const { return has_value() ? std::optional<T>(v_) : std::nullopt; }

  friend bool operator==(const Maybe& a, const Maybe& b) {
    return a.has_value() == b.has_value() && (!a.has_value() || a.v_ == b.v_);
  }
  friend bool operator!=(const Maybe& a, const Maybe& b) { return !(a == b); }
  friend bool operator==(const Maybe& a, std::nullopt_t) { return !a.has_value(); }
  friend bool operator!=(const Maybe& a, std::nullopt_t) { return a.has_value(); }

 private:
  T v_;
};

static_assert(sizeof(Maybe<uint64_t>) == 8 && sizeof(Maybe<int64_t>) == 8 &&
              sizeof(Maybe<double>) == 8);

}  // namespace trtlens
