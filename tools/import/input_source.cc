#include "tools/import/input_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace trackdb::import {
namespace {

constexpr size_t kChunk = size_t{1} << 20;

bool IsGzipMagic(absl::string_view bytes) {
  return bytes.size() >= 2 && bytes[0] == '\x1f' && bytes[1] == '\x8b';
}

}  // namespace

struct InputSource::Gzip {
  z_stream z{};
  bool member_done = false;
  ~Gzip() { inflateEnd(&z); }

  // Drops the decoded part of in->raw_ and reads until it holds `bytes`;
  // false if the input ends (or fails) first.
  static bool NeedRaw(InputSource* in, size_t bytes);
  // After a member's end: starts the next member, or returns false at the
  // end of the input (setting in->status_ if bytes that are not one follow).
  static bool StartNextMember(InputSource* in);
};

bool InputSource::Gzip::NeedRaw(InputSource* in, size_t bytes) {
  if (in->raw_pos_ > 0) {
    in->raw_.erase(0, in->raw_pos_);
    in->raw_pos_ = 0;
  }
  while (in->raw_.size() < bytes && in->ReadRaw(&in->raw_)) {
  }
  return in->raw_.size() >= bytes;
}

bool InputSource::Gzip::StartNextMember(InputSource* in) {
  if (!NeedRaw(in, 2)) {
    if (in->status_.ok() && in->raw_.size() - in->raw_pos_ != 0) {
      in->status_ = absl::DataLossError(
          absl::StrCat(in->name_, ": trailing bytes after the gzip data"));
    }
    return false;
  }
  if (!IsGzipMagic(absl::string_view(in->raw_).substr(in->raw_pos_))) {
    in->status_ = absl::DataLossError(
        absl::StrCat(in->name_, ": trailing bytes after the gzip data"));
    return false;
  }
  Gzip& g = *in->gzip_;
  inflateReset(&g.z);
  g.member_done = false;
  return true;
}

InputSource::~InputSource() {
  if (owns_fd_ && fd_ >= 0) close(fd_);
}

absl::StatusOr<std::unique_ptr<InputSource>> InputSource::Open(
    const std::string& path) {
  std::unique_ptr<InputSource> in(new InputSource());
  if (path == "-") {
    in->name_ = "stdin";
    in->fd_ = 0;
  } else {
    in->name_ = path;
    in->fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (in->fd_ < 0) {
      return absl::NotFoundError(
          absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
    }
    in->owns_fd_ = true;
  }
  struct stat st;
  if (fstat(in->fd_, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      return absl::InvalidArgumentError(absl::StrCat(path, " is a directory"));
    }
    if (S_ISREG(st.st_mode)) in->size_ = static_cast<uint64_t>(st.st_size);
  }
  return in;
}

std::unique_ptr<InputSource> InputSource::FromString(std::string data,
                                                     std::string name) {
  std::unique_ptr<InputSource> in(new InputSource());
  in->name_ = std::move(name);
  in->size_ = data.size();
  in->raw_bytes_ = data.size();
  in->raw_ = std::move(data);
  in->raw_eof_ = true;
  return in;
}

bool InputSource::ReadRaw(std::string* into) {
  if (raw_eof_ || fd_ < 0) {
    raw_eof_ = true;
    return false;
  }
  const size_t old = into->size();
  into->resize(old + kChunk);
  ssize_t n;
  do {
    n = read(fd_, into->data() + old, kChunk);
  } while (n < 0 && errno == EINTR);
  into->resize(old + (n > 0 ? n : 0));
  if (n < 0) {
    status_ = absl::DataLossError(
        absl::StrCat("cannot read ", name_, ": ", std::strerror(errno)));
    return false;
  }
  if (n == 0) {
    raw_eof_ = true;
    return false;
  }
  raw_bytes_ += n;
  return true;
}

bool InputSource::Inflate() {
  Gzip& g = *gzip_;
  // Another gzip member, or the end.
  if (g.member_done && !Gzip::StartNextMember(this)) return false;
  if (raw_pos_ == raw_.size() && !Gzip::NeedRaw(this, 1)) {
    if (status_.ok()) {
      status_ = absl::DataLossError(
          absl::StrCat(name_, ": truncated gzip data (unexpected end)"));
    }
    return false;
  }
  g.z.next_in = reinterpret_cast<Bytef*>(raw_.data() + raw_pos_);
  g.z.avail_in = static_cast<uInt>(raw_.size() - raw_pos_);
  const size_t old = buf_.size();
  buf_.resize(old + kChunk);
  g.z.next_out = reinterpret_cast<Bytef*>(buf_.data() + old);
  g.z.avail_out = static_cast<uInt>(kChunk);
  const int rc = inflate(&g.z, Z_NO_FLUSH);
  raw_pos_ = raw_.size() - g.z.avail_in;
  buf_.resize(old + kChunk - g.z.avail_out);
  if (rc == Z_STREAM_END) {
    g.member_done = true;
  } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
    status_ = absl::DataLossError(
        absl::StrCat(name_, ": corrupt gzip data (",
                     g.z.msg != nullptr ? g.z.msg : "inflate failed", ")"));
    return false;
  }
  return true;
}

bool InputSource::Fill() {
  if (!status_.ok()) return false;
  if (pos_ > 0) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  const size_t before = buf_.size();
  if (!started_) {
    started_ = true;
    while (raw_.size() < 2 && ReadRaw(&raw_)) {
    }
    if (!status_.ok()) return false;
    if (IsGzipMagic(raw_)) {
      gzip_ = std::make_unique<Gzip>();
      if (inflateInit2(&gzip_->z, 15 + 16) != Z_OK) {  // gzip wrapper only
        status_ = absl::InternalError("zlib inflateInit2 failed");
        return false;
      }
    } else {
      buf_.append(raw_);
      raw_.clear();
    }
  }
  while (buf_.size() == before) {
    if (gzip_ ? !Inflate() : !ReadRaw(&buf_)) break;
  }
  return buf_.size() > before;
}

void InputSource::SkipByteOrderMark() {
  bom_checked_ = true;
  while (buf_.size() - pos_ < 3 && Fill()) {
  }
  if (absl::string_view(buf_).substr(pos_, 3) == "\xef\xbb\xbf") pos_ += 3;
}

bool InputSource::ReadLine(absl::string_view* line) {
  if (!bom_checked_) SkipByteOrderMark();
  size_t scanned = 0;  // bytes after pos_ known to hold no '\n'
  while (true) {
    const char* from = buf_.data() + pos_ + scanned;
    const size_t left = buf_.size() - pos_ - scanned;
    if (const void* nl = std::memchr(from, '\n', left)) {
      const size_t end = static_cast<const char*>(nl) - buf_.data();
      size_t len = end - pos_;
      if (len > 0 && buf_[end - 1] == '\r') --len;
      *line = absl::string_view(buf_.data() + pos_, len);
      pos_ = end + 1;
      ++line_number_;
      return true;
    }
    scanned = buf_.size() - pos_;
    if (scanned > kMaxLineBytes) {
      status_ = absl::InvalidArgumentError(
          absl::StrCat(name_, ":", line_number_ + 1, ": line longer than ",
                       kMaxLineBytes >> 20, " MiB"));
      return false;
    }
    if (!Fill()) {
      if (!status_.ok() || pos_ == buf_.size()) return false;
      size_t len = buf_.size() - pos_;  // a last line without '\n'
      if (buf_[buf_.size() - 1] == '\r') --len;
      *line = absl::string_view(buf_.data() + pos_, len);
      pos_ = buf_.size();
      ++line_number_;
      return true;
    }
  }
}

int InputSource::Peek() {
  if (!bom_checked_) SkipByteOrderMark();
  if (pos_ == buf_.size() && !Fill()) return -1;
  return static_cast<uint8_t>(buf_[pos_]);
}

int InputSource::Get() {
  const int c = Peek();
  if (c < 0) return c;
  ++pos_;
  if (at_line_start_) {
    ++line_number_;
    at_line_start_ = false;
  }
  if (c == '\n') at_line_start_ = true;
  return c;
}

}  // namespace trackdb::import
