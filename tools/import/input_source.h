#ifndef TRACKDB_TOOLS_IMPORT_INPUT_SOURCE_H_
#define TRACKDB_TOOLS_IMPORT_INPUT_SOURCE_H_

// One input of trackdb_import: a file, or stdin ("-"), plain or
// gzip-compressed. Compression is recognised by the gzip magic bytes, not by
// the name, so `zcat`-able input works under any name and through a pipe;
// concatenated gzip members (pigz, `cat a.gz b.gz`) are read as one stream.
// A UTF-8 byte order mark at the start (spreadsheet exports) is dropped.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace trackdb::import {

class InputSource {
 public:
  // Lines longer than this are an error, not an unbounded buffer.
  static constexpr size_t kMaxLineBytes = size_t{64} << 20;

  static absl::StatusOr<std::unique_ptr<InputSource>> Open(
      const std::string& path);
  // Reads `data` as if it were a file named `name` (for tests).
  static std::unique_ptr<InputSource> FromString(std::string data,
                                                 std::string name = "input");
  ~InputSource();

  // The next line without its "\n" or "\r\n", valid until the next read;
  // false at the end or on error (see status()). A last line without "\n"
  // is still a line.
  bool ReadLine(absl::string_view* line);
  // The 1-based number of the line last returned by ReadLine, or of the line
  // Get() is on.
  int64_t line_number() const { return line_number_; }

  // Byte-wise reading (a GeoJSON document, json_input.h): the next byte, or -1
  // at the end or on error. Get() consumes it and counts lines.
  int Peek();
  int Get();
  // The 1-based line of the byte Peek() returns.
  int64_t next_byte_line() const {
    return line_number_ + (at_line_start_ ? 1 : 0);
  }

  // The name given to Open ("-" is "stdin").
  const std::string& name() const { return name_; }
  // Bytes read from the file or pipe so far: compressed bytes for gzip.
  uint64_t bytes_read() const { return raw_bytes_; }
  // The file's size, when it is a regular file; compare with bytes_read().
  std::optional<uint64_t> size() const { return size_; }
  bool compressed() const { return gzip_ != nullptr; }
  absl::Status status() const { return status_; }

 private:
  struct Gzip;
  InputSource() = default;
  // Appends decoded bytes to buf_; false at the end or on error.
  bool Fill();
  // Appends what one read() returns to *into; false at the end or on error.
  bool ReadRaw(std::string* into);
  bool Inflate();  // decodes raw_ into buf_; false at the end or on error
  void SkipByteOrderMark();

  std::string name_;
  int fd_ = -1;
  bool owns_fd_ = false;
  std::optional<uint64_t> size_;
  uint64_t raw_bytes_ = 0;
  bool raw_eof_ = false;
  bool started_ = false;  // the first bytes were checked for gzip
  std::unique_ptr<Gzip> gzip_;
  std::string raw_;  // read, not yet decoded (gzip only)
  size_t raw_pos_ = 0;
  std::string buf_;  // decoded, [pos_, buf_.size()) not yet consumed
  size_t pos_ = 0;
  bool at_line_start_ = true;  // for Get()'s line count
  bool bom_checked_ = false;
  int64_t line_number_ = 0;
  absl::Status status_;
};

}  // namespace trackdb::import

#endif  // TRACKDB_TOOLS_IMPORT_INPUT_SOURCE_H_
