#pragma once
// write_pretty_json: JSON as people read it and git diffs it: an object's members one per
// line, indented by two; an array of scalars (a merge ["a", "b"], a list of ids) on one line.

#include <ostream>

#include <boost/json/value.hpp>

namespace pagedserve::train {

void write_pretty_json(std::ostream& out, const boost::json::value& value, int indent = 0);

}  // namespace pagedserve::train
