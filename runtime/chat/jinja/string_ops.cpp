#include "runtime/chat/jinja/string_ops.h"

#include <algorithm>

#include "runtime/chat/jinja/format.h"
#include "runtime/chat/jinja/utf8.h"

namespace pagedserve::jinja {

std::string py_strip(std::string_view s, const std::optional<std::string>& chars, bool left,
                     bool right) {
  const auto cps = utf8::decode(s);
  const auto strip_set = chars ? utf8::decode(*chars) : std::vector<char32_t>{};
  auto strippable = [&](char32_t cp) {
    if (!chars) return utf8::is_space(cp);
    return std::find(strip_set.begin(), strip_set.end(), cp) != strip_set.end();
  };
  std::size_t begin = 0;
  std::size_t end = cps.size();
  if (left) {
    while (begin < end && strippable(cps[begin])) ++begin;
  }
  if (right) {
    while (end > begin && strippable(cps[end - 1])) --end;
  }
  return utf8::encode(std::vector<char32_t>(cps.begin() + static_cast<std::ptrdiff_t>(begin),
                                            cps.begin() + static_cast<std::ptrdiff_t>(end)));
}

namespace {

std::vector<std::string> split_whitespace(std::string_view s, std::int64_t maxsplit) {
  const auto cps = utf8::decode(s);
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < cps.size()) {
    while (i < cps.size() && utf8::is_space(cps[i])) ++i;
    if (i == cps.size()) break;
    if (maxsplit >= 0 && static_cast<std::int64_t>(out.size()) == maxsplit) {
      std::size_t end = cps.size();
      while (end > i && utf8::is_space(cps[end - 1])) --end;
      out.push_back(utf8::encode({cps.begin() + static_cast<std::ptrdiff_t>(i),
                                  cps.begin() + static_cast<std::ptrdiff_t>(end)}));
      break;
    }
    std::size_t j = i;
    while (j < cps.size() && !utf8::is_space(cps[j])) ++j;
    out.push_back(utf8::encode({cps.begin() + static_cast<std::ptrdiff_t>(i),
                                cps.begin() + static_cast<std::ptrdiff_t>(j)}));
    i = j;
  }
  return out;
}

}  // namespace

std::vector<std::string> py_split(std::string_view s, const std::optional<std::string>& sep,
                                  std::int64_t maxsplit) {
  if (!sep) return split_whitespace(s, maxsplit);
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    if (maxsplit >= 0 && static_cast<std::int64_t>(out.size()) == maxsplit) break;
    const auto at = s.find(*sep, start);
    if (at == std::string_view::npos) break;
    out.emplace_back(s.substr(start, at - start));
    start = at + sep->size();
  }
  out.emplace_back(s.substr(start));
  return out;
}

std::vector<std::string> py_rsplit(std::string_view s, const std::optional<std::string>& sep,
                                   std::int64_t maxsplit) {
  if (maxsplit < 0) return py_split(s, sep, maxsplit);
  if (!sep) {
    // Split from the right: reverse code points, split, reverse back.
    auto cps = utf8::decode(s);
    std::reverse(cps.begin(), cps.end());
    auto parts = split_whitespace(utf8::encode(cps), maxsplit);
    for (auto& p : parts) {
      auto pc = utf8::decode(p);
      std::reverse(pc.begin(), pc.end());
      p = utf8::encode(pc);
    }
    std::reverse(parts.begin(), parts.end());
    return parts;
  }
  std::vector<std::string> out;
  std::size_t end = s.size();
  while (static_cast<std::int64_t>(out.size()) < maxsplit) {
    if (end < sep->size()) break;
    const auto at = s.rfind(*sep, end - sep->size());
    if (at == std::string_view::npos) break;
    out.emplace_back(s.substr(at + sep->size(), end - at - sep->size()));
    end = at;
  }
  out.emplace_back(s.substr(0, end));
  std::reverse(out.begin(), out.end());
  return out;
}

std::vector<std::string> py_splitlines(std::string_view s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\n' || s[i] == '\r') {
      out.emplace_back(s.substr(start, i - start));
      if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
      start = i + 1;
    }
  }
  if (start < s.size()) out.emplace_back(s.substr(start));
  return out;
}

std::string py_replace(std::string_view s, std::string_view old_s, std::string_view new_s,
                       std::int64_t count) {
  std::string out;
  if (old_s.empty()) {  // Python inserts `new` between every code point
    const auto cps = utf8::decode(s);
    std::int64_t n = 0;
    for (std::size_t i = 0; i <= cps.size(); ++i) {
      if (count < 0 || n < count) {
        out += new_s;
        ++n;
      }
      if (i < cps.size()) utf8::append(out, cps[i]);
    }
    return out;
  }
  std::size_t start = 0;
  std::int64_t n = 0;
  while (count < 0 || n < count) {
    const auto at = s.find(old_s, start);
    if (at == std::string_view::npos) break;
    out += s.substr(start, at - start);
    out += new_s;
    start = at + old_s.size();
    ++n;
  }
  out += s.substr(start);
  return out;
}

std::string py_title(std::string_view s) {
  std::string out;
  bool prev_cased = false;
  for (char32_t cp : utf8::decode(s)) {
    const bool cased = utf8::is_alpha(cp);
    utf8::append(out, cased ? (prev_cased ? utf8::to_lower(cp) : utf8::to_upper(cp)) : cp);
    prev_cased = cased;
  }
  return out;
}

std::string jinja_title(std::string_view s) {
  // Words start after runs of [-\s({\[<]; each word is capitalized (first upper, rest lower).
  std::string out;
  bool word_start = true;
  for (char32_t cp : utf8::decode(s)) {
    const bool boundary =
        cp == '-' || cp == '(' || cp == '{' || cp == '[' || cp == '<' || utf8::is_space(cp);
    if (boundary) {
      utf8::append(out, cp);
      word_start = true;
      continue;
    }
    utf8::append(out, word_start ? utf8::to_upper(cp) : utf8::to_lower(cp));
    word_start = false;
  }
  return out;
}

std::string py_capitalize(std::string_view s) {
  std::string out;
  bool first = true;
  for (char32_t cp : utf8::decode(s)) {
    utf8::append(out, first ? utf8::to_upper(cp) : utf8::to_lower(cp));
    first = false;
  }
  return out;
}

std::int64_t py_find(std::string_view s, std::string_view sub, bool reverse) {
  const auto at = reverse ? s.rfind(sub) : s.find(sub);
  if (at == std::string_view::npos) return -1;
  return static_cast<std::int64_t>(utf8::length(s.substr(0, at)));
}

std::int64_t py_count(std::string_view s, std::string_view sub) {
  if (sub.empty()) return static_cast<std::int64_t>(utf8::length(s)) + 1;
  std::int64_t n = 0;
  for (std::size_t at = s.find(sub); at != std::string_view::npos;
       at = s.find(sub, at + sub.size()))
    ++n;
  return n;
}

std::string py_format(std::string_view fmt, const call_args& args) {
  std::string out;
  std::size_t auto_index = 0;
  for (std::size_t i = 0; i < fmt.size(); ++i) {
    const char c = fmt[i];
    if ((c == '{' || c == '}') && i + 1 < fmt.size() && fmt[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    if (c != '{') {
      out += c;
      continue;
    }
    const auto close = fmt.find('}', i);
    if (close == std::string_view::npos)
      throw template_error("Single '{' encountered in format string");
    std::string field(fmt.substr(i + 1, close - i - 1));
    if (field.find(':') != std::string::npos || field.find('!') != std::string::npos) {
      throw template_error("format specs are not supported in str.format");
    }
    const value* v = nullptr;
    if (field.empty() || std::all_of(field.begin(), field.end(), ::isdigit)) {
      const std::size_t index = field.empty() ? auto_index++ : std::stoul(field);
      if (index >= args.positional.size())
        throw template_error("Replacement index " + std::to_string(index) + " out of range");
      v = &args.positional[index];
    } else {
      for (const auto& [k, kv] : args.keyword) {
        if (k == field) v = &kv;
      }
      if (v == nullptr) throw template_error("KeyError: '" + field + "'");
    }
    out += python_str(*v);
    i = close;
  }
  return out;
}

bool py_all_chars(std::string_view s, bool (*pred)(char32_t)) {
  const auto cps = utf8::decode(s);
  return !cps.empty() && std::all_of(cps.begin(), cps.end(), pred);
}

bool py_is_cased(std::string_view s, bool upper) {
  bool any = false;
  for (char32_t cp : utf8::decode(s)) {
    if (!utf8::is_alpha(cp)) continue;
    if ((upper ? utf8::to_lower(cp) : utf8::to_upper(cp)) != cp) any = true;
    if ((upper ? utf8::to_upper(cp) : utf8::to_lower(cp)) != cp) return false;
  }
  return any;
}

}  // namespace pagedserve::jinja
