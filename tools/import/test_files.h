#ifndef TRACKDB_TOOLS_IMPORT_TEST_FILES_H_
#define TRACKDB_TOOLS_IMPORT_TEST_FILES_H_

// Small generated input files for trackdb_import's tests.

#include <string>

namespace trackdb::import::testing {

// A fresh directory under the test's temp dir.
std::string NewTempDir();

// Writes `content` to `path` (creating parent directories), gzip-compressed
// when `gzip`; returns the path.
std::string WriteFile(const std::string& path, const std::string& content,
                      bool gzip = false);

// gzip of `content`, as one member.
std::string Gzip(const std::string& content);

}  // namespace trackdb::import::testing

#endif  // TRACKDB_TOOLS_IMPORT_TEST_FILES_H_
