#include "train/tokenizer/json_pretty.h"

#include <algorithm>
#include <string>

#include <boost/json.hpp>

namespace pagedserve::train {

namespace {

bool is_scalar(const boost::json::value& v) { return !v.is_object() && !v.is_array(); }

void newline(std::ostream& out, int indent) { out << '\n' << std::string(indent, ' '); }

void write_object(std::ostream& out, const boost::json::object& obj, int indent) {
  if (obj.empty()) {
    out << "{}";
    return;
  }
  out << '{';
  bool first = true;
  for (const auto& member : obj) {
    if (!first) out << ',';
    first = false;
    newline(out, indent + 2);
    out << boost::json::serialize(boost::json::string(member.key())) << ": ";
    write_pretty_json(out, member.value(), indent + 2);
  }
  newline(out, indent);
  out << '}';
}

void write_array(std::ostream& out, const boost::json::array& arr, int indent) {
  if (std::all_of(arr.begin(), arr.end(), is_scalar)) {
    out << '[';
    for (std::size_t i = 0; i < arr.size(); ++i) {
      out << (i > 0 ? ", " : "") << boost::json::serialize(arr[i]);
    }
    out << ']';
    return;
  }
  out << '[';
  for (std::size_t i = 0; i < arr.size(); ++i) {
    if (i > 0) out << ',';
    newline(out, indent + 2);
    write_pretty_json(out, arr[i], indent + 2);
  }
  newline(out, indent);
  out << ']';
}

}  // namespace

void write_pretty_json(std::ostream& out, const boost::json::value& value, int indent) {
  if (value.is_object()) {
    write_object(out, value.get_object(), indent);
  } else if (value.is_array()) {
    write_array(out, value.get_array(), indent);
  } else {
    out << boost::json::serialize(value);
  }
}

}  // namespace pagedserve::train
