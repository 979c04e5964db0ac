// A layer's other keys (those the model does not name), kept as one compact JSON object text.
// An nlohmann object per layer cost 1.2-1.6 KB on a detailed --exportLayerInfo export (a heap
// block per key, value, array and nested object); the text is about the size of the JSON
// itself, in one block.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace trtlens {

// The text is `{"key":value,...}` as nlohmann's dump() writes it (no whitespace, input order,
// strings escaped the same way), or empty when there are no keys. Only this file and the readers
// that use Attributes::Builder write it, so it is canonical and the lookups below scan it with a
// small hand-written scanner instead of parsing the object each time. One exception: a string
// from a text log that is not valid UTF-8 keeps its bytes as they are (a dump would throw or
// replace them); renderers replace them when they write JSON, as they did before.
class Attributes {
 public:
  // One top-level member: its key and value as they stand in the text.
  struct Member {
    std::string_view key_text;    // between the quotes, escaped
    std::string_view value_text;  // the value's JSON text
    std::string key() const;      // unescaped
    nlohmann::ordered_json value() const;
  };

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Member;
    using difference_type = std::ptrdiff_t;
    using pointer = const Member*;
    using reference = const Member&;
    const_iterator() = default;
    const_iterator(std::string_view text, size_t pos);
    const Member& operator*() const { return member_; }
    const Member* operator->() const { return &member_; }
    const_iterator& operator++();
    bool operator==(const const_iterator& o) const { return pos_ == o.pos_; }
    bool operator!=(const const_iterator& o) const { return pos_ != o.pos_; }

   private:
    void read();
    std::string_view text_;
    size_t pos_ = 0, next_ = 0;
    Member member_;
  };

  // Writes a layer's members in order; a repeated key keeps its first place and its last value
  // (as a JSON object read key by key does). Linear in the number of keys: past a few keys an
  // index of them is kept. Reusable: finish() leaves it empty.
  class Builder {
   public:
    // `value_text` is canonical JSON (write strings with append_string).
    void add(std::string_view key, std::string_view value_text);
    void add_string(std::string_view key, std::string_view value);
    bool empty() const { return members_.empty(); }
    Attributes finish();  // and clears
    void clear();

   private:
    struct Slot {
      size_t key, key_size, value, value_size;  // offsets into buf_
    };
    std::string buf_, escaped_;
    std::vector<Slot> members_;
    std::unordered_map<std::string, size_t> index_;  // escaped key -> member, past kLinearKeys
  };

  Attributes() = default;
  // `text` must be canonical (see above): written by a Builder or by text() of another.
  static Attributes from_text(std::string text);

  bool empty() const { return text_.empty(); }
  size_t size() const;
  const std::string& text() const { return text_; }
  const_iterator begin() const { return {text_, 0}; }
  const_iterator end() const { return {text_, text_.size()}; }

  bool contains(std::string_view key) const { return find(key).has_value(); }
  // The value of `key`, parsed; nullopt when absent.
  std::optional<nlohmann::ordered_json> get(std::string_view key) const;
  // The value of `key` when it is a string; empty otherwise.
  std::string string(std::string_view key) const;
  // The value of `key` when it is an integer that fits int64_t.
  std::optional<int64_t> integer(std::string_view key) const;
  // The object as nlohmann's (an empty object when there are no keys).
  nlohmann::ordered_json to_json() const;

  // Sets `key` to a string value: replaces its value in place, or appends it. Linear in the
  // text (the text readers set a handful of keys a layer).
  void set(std::string_view key, std::string_view value);
  // Adds every key of `from` that this lacks, in `from`'s order.
  void merge_missing(const Attributes& from);

  bool operator==(const Attributes& o) const { return text_ == o.text_; }
  bool operator!=(const Attributes& o) const { return text_ != o.text_; }

  // Appends `s` as a JSON string, escaped as nlohmann's dump() does (ensure_ascii off).
  static void append_string(std::string& out, std::string_view s);
  // Appends `v` as dump() writes it, its strings through append_string.
  static void append_json(std::string& out, const nlohmann::ordered_json& v);

 private:
  std::optional<Member> find(std::string_view key) const;
  std::string text_;
};

}  // namespace trtlens
