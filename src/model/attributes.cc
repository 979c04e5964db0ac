#include "model/attributes.h"

#include <algorithm>
#include <charconv>
#include <unordered_set>

namespace trtlens {
namespace {

using ojson = nlohmann::ordered_json;

// Past this many keys a Builder looks repeated keys up in an index instead of a linear search.
constexpr size_t kLinearKeys = 64;

// The scanner below reads only canonical text (see the header): no whitespace, every string
// closed, every bracket matched. Positions past the end stop it at the end.

// Past the string that starts at t[i] (a quote).
size_t skip_string(std::string_view t, size_t i) {
  for (++i; i < t.size(); ++i) {
    if (t[i] == '\\')
      ++i;
    else if (t[i] == '"')
      return i + 1;
  }
  return t.size();
}

// Past the value that starts at t[i].
size_t skip_value(std::string_view t, size_t i) {
  if (i >= t.size()) return t.size();
  const char c = t[i];
  if (c == '"') return skip_string(t, i);
  if (c == '{' || c == '[') {
    size_t depth = 0;
    while (i < t.size()) {
      const char d = t[i];
      if (d == '"') {
        i = skip_string(t, i);
        continue;
      }
      if (d == '{' || d == '[') {
        ++depth;
      } else if (d == '}' || d == ']') {
        if (--depth == 0) return i + 1;
      }
      ++i;
    }
    return t.size();
  }
  while (i < t.size() && t[i] != ',' && t[i] != '}' && t[i] != ']') ++i;
  return i;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

uint32_t hex4(std::string_view t, size_t i) {
  uint32_t v = 0;
  for (size_t k = i; k < i + 4 && k < t.size(); ++k) {
    const char c = t[k];
    v = v * 16 + uint32_t(c >= 'a' ? c - 'a' + 10 : c >= 'A' ? c - 'A' + 10 : c - '0');
  }
  return v;
}

// The text between a string's quotes, unescaped. Bytes that are not escapes are copied as they
// are (so a string kept with invalid UTF-8 reads back unchanged).
std::string unescape(std::string_view t) {
  std::string out;
  out.reserve(t.size());
  for (size_t i = 0; i < t.size(); ++i) {
    const size_t run = t.find('\\', i);
    if (run == std::string_view::npos) {
      out.append(t.substr(i));
      break;
    }
    out.append(t.substr(i, run - i));
    i = run + 1;
    if (i >= t.size()) break;
    switch (t[i]) {
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        uint32_t cp = hex4(t, i + 1);
        i += 4;
        if (cp >= 0xD800 && cp < 0xDC00 && i + 6 < t.size() && t[i + 1] == '\\' &&
            t[i + 2] == 'u') {
          const uint32_t lo = hex4(t, i + 3);
          if (lo >= 0xDC00 && lo < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            i += 6;
          }
        }
        append_utf8(out, cp);
        break;
      }
      default:
        out += t[i];
        break;  // \" \\ \/
    }
  }
  return out;
}

// The number dump() wrote: an integer (int64, else uint64, as the readers store them) or a
// double (dump() always writes a '.' or an exponent for one).
ojson parse_number(std::string_view t) {
  const char* b = t.data();
  const char* e = t.data() + t.size();
  if (t.find_first_of(".eE") == std::string_view::npos) {
    int64_t i = 0;
    if (std::from_chars(b, e, i).ec == std::errc()) return i;
    uint64_t u = 0;
    if (std::from_chars(b, e, u).ec == std::errc()) return u;
  }
  double d = 0;
  std::from_chars(b, e, d);
  return d;
}

// Builds nlohmann's value from canonical text starting at t[i]; leaves i past it. Objects keep
// their members as written, a repeated nested key included (as the readers stored them).
ojson parse_value(std::string_view t, size_t& i) {
  if (i >= t.size()) return nullptr;
  switch (t[i]) {
    case '"': {
      const size_t e = skip_string(t, i);
      ojson s = unescape(t.substr(i + 1, e - i - 2));
      i = e;
      return s;
    }
    case '{': {
      ojson o = ojson::object();
      auto& items = static_cast<ojson::object_t::Container&>(o.get_ref<ojson::object_t&>());
      ++i;
      while (i < t.size() && t[i] != '}') {
        const size_t e = skip_string(t, i);
        std::string key = unescape(t.substr(i + 1, e - i - 2));
        i = e + 1;  // the ':'
        ojson value = parse_value(t, i);
        items.emplace_back(std::move(key), std::move(value));
        if (i < t.size() && t[i] == ',') ++i;
      }
      ++i;
      return o;
    }
    case '[': {
      ojson a = ojson::array();
      ++i;
      while (i < t.size() && t[i] != ']') {
        a.push_back(parse_value(t, i));
        if (i < t.size() && t[i] == ',') ++i;
      }
      ++i;
      return a;
    }
    case 't':
      i += 4;
      return true;
    case 'f':
      i += 5;
      return false;
    case 'n':
      i += 4;
      return nullptr;
    default: {
      const size_t e = skip_value(t, i);
      ojson n = parse_number(t.substr(i, e - i));
      i = e;
      return n;
    }
  }
}

ojson parse_text(std::string_view t) {
  size_t i = 0;
  return parse_value(t, i);
}

void append_member(std::string& out, std::string_view key_text, std::string_view value_text) {
  out += '"';
  out.append(key_text);
  out += "\":";
  out.append(value_text);
}

}  // namespace

std::string Attributes::Member::key() const { return unescape(key_text); }

ojson Attributes::Member::value() const { return parse_text(value_text); }

Attributes::const_iterator::const_iterator(std::string_view text, size_t pos)
    : text_(text), pos_(pos) {
  if (pos_ == 0) {
    pos_ = text_.size() > 2 ? 1 : text_.size();  // "{}" is never stored; guard it anyway
    if (pos_ < text_.size()) read();
  }
}

void Attributes::const_iterator::read() {
  const size_t key_end = skip_string(text_, pos_);
  member_.key_text = text_.substr(pos_ + 1, key_end - pos_ - 2);
  const size_t value = std::min(key_end + 1, text_.size());  // past the ':'
  const size_t value_end = skip_value(text_, value);
  member_.value_text = text_.substr(value, value_end - value);
  next_ = value_end < text_.size() && text_[value_end] == ',' ? value_end + 1 : text_.size();
}

Attributes::const_iterator& Attributes::const_iterator::operator++() {
  pos_ = next_;
  if (pos_ < text_.size()) read();
  return *this;
}

void Attributes::append_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  size_t run = 0;  // start of the bytes not yet written
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.substr(run, i - run));
    run = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 15];
    }
  }
  out.append(s.substr(run));
  out += '"';
}

void Attributes::append_json(std::string& out, const ojson& v) {
  switch (v.type()) {
    case ojson::value_t::string:
      append_string(out, v.get_ref<const std::string&>());
      return;
    case ojson::value_t::object: {
      out += '{';
      bool first = true;
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (!first) out += ',';
        first = false;
        append_string(out, it.key());
        out += ':';
        append_json(out, it.value());
      }
      out += '}';
      return;
    }
    case ojson::value_t::array: {
      out += '[';
      bool first = true;
      for (const auto& item : v) {
        if (!first) out += ',';
        first = false;
        append_json(out, item);
      }
      out += ']';
      return;
    }
    default:
      out += v.dump();  // numbers, booleans, null: no strings, so it cannot throw
  }
}

Attributes Attributes::from_text(std::string text) {
  Attributes a;
  a.text_ = std::move(text);
  return a;
}

size_t Attributes::size() const {
  size_t n = 0;
  for (auto it = begin(); it != end(); ++it) ++n;
  return n;
}

std::optional<Attributes::Member> Attributes::find(std::string_view key) const {
  if (text_.empty()) return std::nullopt;
  std::string escaped;
  append_string(escaped, key);
  const std::string_view want = std::string_view(escaped).substr(1, escaped.size() - 2);
  for (auto it = begin(); it != end(); ++it)
    if (it->key_text == want) return *it;
  return std::nullopt;
}

std::optional<ojson> Attributes::get(std::string_view key) const {
  auto m = find(key);
  if (!m) return std::nullopt;
  return m->value();
}

std::string Attributes::string(std::string_view key) const {
  auto m = find(key);
  if (!m || m->value_text.size() < 2 || m->value_text.front() != '"') return {};
  return unescape(m->value_text.substr(1, m->value_text.size() - 2));
}

std::optional<int64_t> Attributes::integer(std::string_view key) const {
  auto v = get(key);
  // As nlohmann's get<int64_t>() reads an integer (the callers' rule before the text form).
  if (v && v->is_number_integer()) return v->get<int64_t>();
  return std::nullopt;
}

ojson Attributes::to_json() const {
  if (text_.empty()) return ojson::object();
  return parse_text(text_);
}

void Attributes::set(std::string_view key, std::string_view value) {
  std::string value_text;
  append_string(value_text, value);
  if (auto m = find(key)) {
    const size_t at = size_t(m->value_text.data() - text_.data());
    text_.replace(at, m->value_text.size(), value_text);
    return;
  }
  std::string member;
  append_string(member, key);
  member += ':';
  member += value_text;
  if (text_.empty()) {
    text_ = "{" + member + "}";
  } else {
    member.insert(member.begin(), ',');
    text_.insert(text_.size() - 1, member);
  }
}

void Attributes::merge_missing(const Attributes& from) {
  if (from.empty()) return;
  if (empty()) {
    text_ = from.text_;
    return;
  }
  std::unordered_set<std::string_view> have;
  for (const auto& m : *this) have.insert(m.key_text);
  std::string added;
  for (const auto& m : from) {
    if (have.count(m.key_text)) continue;
    added += ',';
    append_member(added, m.key_text, m.value_text);
  }
  text_.insert(text_.size() - 1, added);
}

void Attributes::Builder::add(std::string_view key, std::string_view value_text) {
  escaped_.clear();
  append_string(escaped_, key);
  const std::string_view k = std::string_view(escaped_).substr(1, escaped_.size() - 2);
  auto replace = [&](Slot& s) {  // a repeated key: the last value wins, in the first place
    s.value = buf_.size();
    s.value_size = value_text.size();
    buf_.append(value_text);
  };
  if (members_.size() < kLinearKeys) {
    for (auto& s : members_)
      if (std::string_view(buf_).substr(s.key, s.key_size) == k) return replace(s);
  } else {
    if (index_.empty())
      for (size_t i = 0; i < members_.size(); ++i)
        index_.emplace(buf_.substr(members_[i].key, members_[i].key_size), i);
    auto [it, fresh] = index_.try_emplace(std::string(k), members_.size());
    if (!fresh) return replace(members_[it->second]);
  }
  Slot s;
  s.key = buf_.size();
  s.key_size = k.size();
  buf_.append(k);
  s.value = buf_.size();
  s.value_size = value_text.size();
  buf_.append(value_text);
  members_.push_back(s);
}

void Attributes::Builder::add_string(std::string_view key, std::string_view value) {
  std::string text;
  append_string(text, value);
  add(key, text);
}

Attributes Attributes::Builder::finish() {
  Attributes a;
  if (!members_.empty()) {
    size_t size = 1 + members_.size();  // the braces and the commas
    for (const auto& s : members_) size += s.key_size + 3 + s.value_size;
    std::string& out = a.text_;
    out.reserve(size);
    out += '{';
    for (size_t i = 0; i < members_.size(); ++i) {
      if (i) out += ',';
      const Slot& s = members_[i];
      append_member(out, std::string_view(buf_).substr(s.key, s.key_size),
                    std::string_view(buf_).substr(s.value, s.value_size));
    }
    out += '}';
  }
  clear();
  return a;
}

void Attributes::Builder::clear() {
  buf_.clear();
  members_.clear();
  index_.clear();
}

}  // namespace trtlens
