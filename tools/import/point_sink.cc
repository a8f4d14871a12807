#include "tools/import/point_sink.h"

#include "absl/strings/str_cat.h"

namespace trackdb::import {

std::string Describe(const RowOrigin& origin) {
  return absl::StrCat(origin.file != nullptr ? *origin.file : "input", ":",
                      origin.line);
}

}  // namespace trackdb::import
