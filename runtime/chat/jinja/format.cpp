#include "runtime/chat/jinja/format.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "runtime/chat/jinja/utf8.h"

namespace pagedserve::jinja {
namespace {

// Deeply nested data must not exhaust the stack while printing.
constexpr int max_print_depth = 512;

void check_depth(int depth) {
  if (depth > max_print_depth) throw template_error("value nested too deeply to print");
}

// print_limit_scope's limit; checked after each item, so a print overshoots it by one item
// at most (and every item is bounded the same way).
thread_local std::size_t print_limit = 16u << 20;

void check_size(const std::string& out) {
  if (out.size() > print_limit) {
    throw template_error("value too long to print (over " + std::to_string(print_limit) +
                         " bytes)");
  }
}

void append_hex4(std::string& out, unsigned v) {
  std::array<char, 8> buf{};
  std::snprintf(buf.data(), buf.size(), "%04x", v);
  out += buf.data();
}

std::string string_repr(const std::string& s) {
  const bool has_single = s.find('\'') != std::string::npos;
  const bool has_double = s.find('"') != std::string::npos;
  const char quote = (has_single && !has_double) ? '"' : '\'';
  std::string out(1, quote);
  for (char32_t cp : utf8::decode(s)) {
    if (cp == static_cast<char32_t>(quote) || cp == '\\') {
      out += '\\';
      out += static_cast<char>(cp);
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp == '\t') {
      out += "\\t";
    } else if (cp < 0x20 || cp == 0x7F) {
      std::array<char, 8> buf{};
      std::snprintf(buf.data(), buf.size(), "\\x%02x", static_cast<unsigned>(cp));
      out += buf.data();
    } else {
      utf8::append(out, cp);
    }
  }
  out += quote;
  return out;
}

void repr_into(std::string& out, const value& v, int depth);

void sequence_repr(std::string& out, const list_object& l, int depth) {
  out += l.is_tuple ? '(' : '[';
  for (std::size_t i = 0; i < l.items.size(); ++i) {
    if (i > 0) out += ", ";
    repr_into(out, l.items[i], depth + 1);
    check_size(out);
  }
  if (l.is_tuple && l.items.size() == 1) out += ',';
  out += l.is_tuple ? ')' : ']';
}

void repr_into(std::string& out, const value& v, int depth) {
  check_depth(depth);
  if (v.is_string()) {
    out += string_repr(v.as_string());
  } else if (v.is_list()) {
    sequence_repr(out, *v.as_list(), depth);
  } else if (v.is_dict()) {
    const auto& d = *v.as_dict();
    if (d.is_namespace) out += "<Namespace ";
    out += '{';
    for (std::size_t i = 0; i < d.entries.size(); ++i) {
      if (i > 0) out += ", ";
      out += string_repr(d.entries[i].first);
      out += ": ";
      repr_into(out, d.entries[i].second, depth + 1);
      check_size(out);
    }
    out += '}';
    if (d.is_namespace) out += '>';
  } else {
    out += python_str(v);
  }
}

void json_string(std::string& out, const std::string& s, bool ensure_ascii) {
  out += '"';
  for (char32_t cp : utf8::decode(s)) {
    switch (cp) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
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
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (cp < 0x20 || (ensure_ascii && cp >= 0x7F && cp < 0x10000)) {
          out += "\\u";
          append_hex4(out, static_cast<unsigned>(cp));
        } else if (ensure_ascii && cp >= 0x10000) {  // UTF-16 surrogate pair, as Python
          const auto v = static_cast<unsigned>(cp - 0x10000);
          out += "\\u";
          append_hex4(out, 0xD800 + (v >> 10));
          out += "\\u";
          append_hex4(out, 0xDC00 + (v & 0x3FF));
        } else {
          utf8::append(out, cp);
        }
    }
  }
  out += '"';
}

struct json_writer {
  const json_options& opt;
  std::string item_sep;
  std::string key_sep;
  std::string out;

  void newline(int level) {
    if (!opt.indent) return;
    out += '\n';
    for (int i = 0; i < level; ++i) out += *opt.indent;
  }

  void write(const value& v, int level) {
    check_depth(level);
    switch (v.type()) {
      case value::kind::none:
        out += "null";
        return;
      case value::kind::boolean:
        out += v.as_bool() ? "true" : "false";
        return;
      case value::kind::integer:
        out += std::to_string(v.as_int());
        return;
      case value::kind::floating:
        write_float(v.as_float());
        return;
      case value::kind::string:
        json_string(out, v.as_string(), opt.ensure_ascii);
        return;
      case value::kind::list:
        write_list(*v.as_list(), level);
        return;
      case value::kind::dict:
        write_dict(*v.as_dict(), level);
        return;
      default:
        throw template_error("Object of type " + type_name(v) + " is not JSON serializable");
    }
  }

  void write_float(double d) {
    if (std::isnan(d))
      out += "NaN";
    else if (std::isinf(d))
      out += d > 0 ? "Infinity" : "-Infinity";
    else
      out += float_repr(d);
  }

  void write_list(const list_object& l, int level) {
    if (l.items.empty()) {
      out += "[]";
      return;
    }
    out += '[';
    for (std::size_t i = 0; i < l.items.size(); ++i) {
      if (i > 0) out += item_sep;
      newline(level + 1);
      write(l.items[i], level + 1);
      check_size(out);
    }
    newline(level);
    out += ']';
  }

  void write_dict(const dict_object& d, int level) {
    if (d.is_namespace) throw template_error("Object of type Namespace is not JSON serializable");
    if (d.entries.empty()) {
      out += "{}";
      return;
    }
    std::vector<const std::pair<std::string, value>*> entries;
    for (const auto& e : d.entries) entries.push_back(&e);
    if (opt.sort_keys) {
      std::stable_sort(entries.begin(), entries.end(),
                       [](const auto* a, const auto* b) { return a->first < b->first; });
    }
    out += '{';
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (i > 0) out += item_sep;
      newline(level + 1);
      json_string(out, entries[i]->first, opt.ensure_ascii);
      out += key_sep;
      write(entries[i]->second, level + 1);
      check_size(out);
    }
    newline(level);
    out += '}';
  }
};

}  // namespace

print_limit_scope::print_limit_scope(std::size_t max_bytes) : saved_(print_limit) {
  print_limit = max_bytes;
}

print_limit_scope::~print_limit_scope() { print_limit = saved_; }

std::string float_repr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  if (d == 0.0) return std::signbit(d) ? "-0.0" : "0.0";
  std::array<char, 64> buf{};
  auto res = std::to_chars(buf.data(), buf.data() + buf.size(), d, std::chars_format::scientific);
  std::string sci(buf.data(), res.ptr);  // "-d.ddde+XX"
  const bool negative = sci[0] == '-';
  if (negative) sci.erase(0, 1);
  const auto e = sci.find('e');
  const int exponent = std::stoi(sci.substr(e + 1));
  std::string digits = sci.substr(0, e);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  std::string out = negative ? "-" : "";
  if (exponent >= -4 && exponent < 16) {  // Python repr switches to exponent form outside
    if (exponent < 0) {
      out += "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
    } else if (static_cast<std::size_t>(exponent) + 1 >= digits.size()) {
      out += digits + std::string(static_cast<std::size_t>(exponent) + 1 - digits.size(), '0');
      out += ".0";
    } else {
      out += digits.substr(0, static_cast<std::size_t>(exponent) + 1) + "." +
             digits.substr(static_cast<std::size_t>(exponent) + 1);
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  std::array<char, 16> exp{};
  std::snprintf(exp.data(), exp.size(), "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
  return out + exp.data();
}

std::string python_str(const value& v) {
  switch (v.type()) {
    case value::kind::undefined:
      return "";
    case value::kind::none:
      return "None";
    case value::kind::boolean:
      return v.as_bool() ? "True" : "False";
    case value::kind::integer:
      return std::to_string(v.as_int());
    case value::kind::floating:
      return float_repr(v.as_float());
    case value::kind::string:
      return v.as_string();
    case value::kind::function:
      return "<function " + v.as_function()->name + ">";
    default: {
      std::string out;
      repr_into(out, v, 0);
      return out;
    }
  }
}

std::string python_repr(const value& v) {
  if (v.is_undefined()) return "Undefined";
  std::string out;
  repr_into(out, v, 0);
  return out;
}

std::string to_json(const value& v, const json_options& options) {
  json_writer w{options,
                options.item_separator.value_or(options.indent ? "," : ", "),
                options.key_separator.value_or(": "),
                {}};
  w.write(v, 0);
  return std::move(w.out);
}

}  // namespace pagedserve::jinja
