#include "storage/import/external_sort.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <queue>

#include "absl/strings/str_cat.h"
#include "storage/format/keys.h"

namespace trackdb::storage {
namespace {

using Entry = ExternalSorter::Entry;

constexpr size_t kEntryOverhead = sizeof(Entry) + sizeof(uint32_t);
constexpr uint64_t kMaxBuffer = uint64_t{1} << 32;

constexpr uint32_t kHeadBytes = 16;

// Bytes [from, from + 8) of `key` as a big-endian number, zero-padded.
uint64_t Chunk(absl::string_view key, size_t from) {
  uint64_t v = 0;
  for (size_t i = from; i < from + 8 && i < key.size(); ++i) {
    v |= uint64_t{static_cast<uint8_t>(key[i])} << (56 - 8 * (i - from));
  }
  return v;
}

absl::Status IoError(absl::string_view what, const std::string& path) {
  return absl::InternalError(
      absl::StrCat(what, " ", path, ": ", std::strerror(errno)));
}

// A source of sorted, duplicate-free records: a spilled run or the last,
// in-memory one.
class Source {
 public:
  virtual ~Source() = default;
  virtual bool Next() = 0;
  virtual absl::string_view key() const = 0;
  virtual absl::string_view value() const = 0;
  virtual absl::Status status() const { return absl::OkStatus(); }
};

class MemorySource : public Source {
 public:
  MemorySource(const char* buffer, const std::vector<Entry>* entries)
      : buffer_(buffer), entries_(entries) {}

  bool Next() override {
    if (next_ >= entries_->size()) return false;
    const Entry& e = (*entries_)[next_++];
    uint32_t value_size;
    // Sorted order is random order in the buffer: fetch ahead.
    if (next_ + 8 < entries_->size()) {
      __builtin_prefetch(buffer_ + (*entries_)[next_ + 8].offset);
    }
    std::memcpy(&value_size, buffer_ + e.offset, sizeof value_size);
    const char* key = buffer_ + e.offset + sizeof value_size;
    key_ = absl::string_view(key, e.key_size);
    value_ = absl::string_view(key + e.key_size, value_size);
    return true;
  }
  absl::string_view key() const override { return key_; }
  absl::string_view value() const override { return value_; }

 private:
  const char* buffer_;
  const std::vector<Entry>* entries_;
  size_t next_ = 0;
  absl::string_view key_, value_;
};

// Reads a spill file: varint32 key size, varint32 value size, key, value.
class FileSource : public Source {
 public:
  FileSource(std::string path, size_t buffer_bytes)
      : path_(std::move(path)), buffer_(buffer_bytes, '\0') {
    file_ = std::fopen(path_.c_str(), "rb");
    if (file_ == nullptr) status_ = IoError("cannot open spill file", path_);
  }
  ~FileSource() override {
    if (file_ != nullptr) std::fclose(file_);
  }

  bool Next() override {
    if (!status_.ok()) return false;
    uint32_t key_size = 0, value_size = 0;
    if (!Fill(10)) return false;
    if (end_ == pos_) return false;  // clean end of file
    absl::string_view in(buffer_.data() + pos_, end_ - pos_);
    const size_t before = in.size();
    if (!ReadVarint32(&in, &key_size) || !ReadVarint32(&in, &value_size)) {
      status_ = absl::DataLossError(absl::StrCat("corrupt spill file ", path_));
      return false;
    }
    pos_ += before - in.size();
    const size_t need = size_t{key_size} + value_size;
    if (need > buffer_.size()) buffer_.resize(need);
    if (!Fill(need) || end_ - pos_ < need) {
      if (status_.ok()) {
        status_ =
            absl::DataLossError(absl::StrCat("truncated spill file ", path_));
      }
      return false;
    }
    key_ = absl::string_view(buffer_.data() + pos_, key_size);
    value_ = absl::string_view(buffer_.data() + pos_ + key_size, value_size);
    pos_ += need;
    return true;
  }
  absl::string_view key() const override { return key_; }
  absl::string_view value() const override { return value_; }
  absl::Status status() const override { return status_; }

 private:
  // Makes at least `want` bytes available from pos_ unless the file ends.
  // Invalidates key_ and value_.
  bool Fill(size_t want) {
    if (end_ - pos_ >= want) return true;
    std::memmove(buffer_.data(), buffer_.data() + pos_, end_ - pos_);
    end_ -= pos_;
    pos_ = 0;
    while (end_ < want && !eof_) {
      const size_t n =
          std::fread(buffer_.data() + end_, 1, buffer_.size() - end_, file_);
      end_ += n;
      if (n == 0) {
        if (std::ferror(file_)) {
          status_ = IoError("cannot read spill file", path_);
          return false;
        }
        eof_ = true;
      }
    }
    return true;
  }

  std::string path_;
  std::FILE* file_ = nullptr;
  std::string buffer_;
  size_t pos_ = 0, end_ = 0;
  bool eof_ = false;
  absl::Status status_;
  absl::string_view key_, value_;
};

// Merges sources; of equal keys, the later source's record wins.
class MergeStream : public SortedStream {
 public:
  explicit MergeStream(std::vector<std::unique_ptr<Source>> sources)
      : sources_(std::move(sources)) {
    for (size_t i = 0; i < sources_.size(); ++i) Advance(i);
  }

  bool Next() override {
    // The previous winner's record stayed valid until now.
    if (current_ != SIZE_MAX) Advance(current_);
    current_ = SIZE_MAX;
    if (!status_.ok() || heap_.empty()) return false;
    const size_t winner = heap_.top();
    heap_.pop();
    while (!heap_.empty() &&
           sources_[heap_.top()]->key() == sources_[winner]->key()) {
      const size_t loser = heap_.top();
      heap_.pop();
      Advance(loser);
    }
    current_ = winner;
    return status_.ok();
  }
  absl::string_view key() const override { return sources_[current_]->key(); }
  absl::string_view value() const override {
    return sources_[current_]->value();
  }
  absl::Status status() const override { return status_; }

 private:
  void Advance(size_t i) {
    if (sources_[i]->Next()) {
      heap_.push(i);
    } else if (!sources_[i]->status().ok()) {
      status_ = sources_[i]->status();
    }
  }

  struct After {
    const MergeStream* self;
    // std::priority_queue pops the greatest: "greatest" = smallest key, and
    // of equal keys the latest source.
    bool operator()(size_t a, size_t b) const {
      const int c = self->sources_[a]->key().compare(self->sources_[b]->key());
      return c != 0 ? c > 0 : a < b;
    }
  };

  std::vector<std::unique_ptr<Source>> sources_;
  std::priority_queue<size_t, std::vector<size_t>, After> heap_{After{this}};
  size_t current_ = SIZE_MAX;  // the source of the current record
  absl::Status status_;
};

// The common case: everything fit in memory.
class SingleStream : public SortedStream {
 public:
  explicit SingleStream(std::unique_ptr<Source> source)
      : source_(std::move(source)) {}
  bool Next() override { return source_->Next(); }
  absl::string_view key() const override { return source_->key(); }
  absl::string_view value() const override { return source_->value(); }
  absl::Status status() const override { return source_->status(); }

 private:
  std::unique_ptr<Source> source_;
};

}  // namespace

ExternalSorter::ExternalSorter(ExternalSortOptions options)
    : options_(std::move(options)) {}

ExternalSorter::~ExternalSorter() {
  for (const std::string& path : run_files_) std::remove(path.c_str());
  if (buffer_.data != nullptr) munmap(buffer_.data, buffer_.capacity);
}

absl::Status ExternalSorter::Reserve(size_t bytes) {
  if (buffer_.data != nullptr) munmap(buffer_.data, buffer_.capacity);
  buffer_ = Buffer();
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot map a ", bytes >> 20,
                     " MiB sort buffer: ", std::strerror(errno)));
  }
  madvise(p, bytes, MADV_HUGEPAGE);  // a hint; fine if refused
  buffer_.data = static_cast<char*>(p);
  buffer_.capacity = bytes;
  return absl::OkStatus();
}

absl::Status ExternalSorter::Add(absl::string_view key,
                                 absl::string_view value) {
  if (finished_) {
    return absl::FailedPreconditionError("ExternalSorter::Add after Finish");
  }
  const uint64_t record = sizeof(uint32_t) + key.size() + value.size();
  if (key.size() >= kMaxBuffer || value.size() >= kMaxBuffer ||
      record >= kMaxBuffer) {
    return absl::InvalidArgumentError("record over 4 GiB");
  }
  const uint64_t in_use = buffer_.size + entries_.size() * kEntryOverhead;
  if (!entries_.empty() &&
      (in_use + record + kEntryOverhead > options_.memory_bytes ||
       buffer_.size + record > buffer_.capacity)) {
    if (absl::Status s = SortAndSpill(); !s.ok()) return s;
  }
  if (buffer_.size + record > buffer_.capacity) {
    // The first record, or one larger than the budget on its own.
    if (absl::Status s = Reserve(std::max<size_t>(
            record, std::min<uint64_t>(options_.memory_bytes, kMaxBuffer - 1)));
        !s.ok()) {
      return s;
    }
  }
  const uint32_t value_size = static_cast<uint32_t>(value.size());
  entries_.push_back({{Chunk(key, 0), Chunk(key, 8)},
                      static_cast<uint32_t>(buffer_.size),
                      static_cast<uint32_t>(key.size())});
  char* out = buffer_.data + buffer_.size;
  std::memcpy(out, &value_size, sizeof value_size);
  std::memcpy(out + sizeof value_size, key.data(), key.size());
  std::memcpy(out + sizeof value_size + key.size(), value.data(), value.size());
  buffer_.size += record;
  ++records_added_;
  return absl::OkStatus();
}

void ExternalSorter::SortBuffer() {
  const char* data = buffer_.data;
  // The bytes after the head (which the comparison has already seen).
  auto tail_of = [data](const Entry& e) {
    const uint32_t skip = std::min(e.key_size, kHeadBytes);
    return absl::string_view(data + e.offset + sizeof(uint32_t) + skip,
                             e.key_size - skip);
  };
  // <0, 0, >0 as the keys compare; equal heads and sizes <= 16 mean equal
  // keys (zero padding: the shorter is a prefix of the longer).
  auto compare = [&tail_of](const Entry& a, const Entry& b) {
    if (a.head[0] != b.head[0]) return a.head[0] < b.head[0] ? -1 : 1;
    if (a.head[1] != b.head[1]) return a.head[1] < b.head[1] ? -1 : 1;
    if (a.key_size > kHeadBytes || b.key_size > kHeadBytes) {
      const int c = tail_of(a).compare(tail_of(b));
      if (c != 0) return c;
    }
    return a.key_size == b.key_size ? 0 : (a.key_size < b.key_size ? -1 : 1);
  };
  std::sort(entries_.begin(), entries_.end(),
            [&compare](const Entry& a, const Entry& b) {
              const int c = compare(a, b);
              return c != 0 ? c < 0 : a.offset < b.offset;
            });
  // Of equal keys (adjacent, in the order added) keep the last.
  size_t out = 0;
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (i + 1 < entries_.size() && compare(entries_[i], entries_[i + 1]) == 0) {
      continue;
    }
    entries_[out++] = entries_[i];
  }
  entries_.resize(out);
}

absl::Status ExternalSorter::SortAndSpill() {
  SortBuffer();
  const std::string path = absl::StrCat(options_.temp_dir, "/", options_.name,
                                        "-", run_files_.size(), ".run");
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return IoError("cannot create spill file", path);
  run_files_.push_back(path);  // removed by the destructor from now on
  std::string out;
  out.reserve(size_t{1} << 20);
  bool ok = true;
  MemorySource run(buffer_.data, &entries_);
  while (run.Next() && ok) {
    AppendVarint32(&out, static_cast<uint32_t>(run.key().size()));
    AppendVarint32(&out, static_cast<uint32_t>(run.value().size()));
    out.append(run.key().data(), run.key().size());
    out.append(run.value().data(), run.value().size());
    if (out.size() >= (size_t{1} << 20)) {
      ok = std::fwrite(out.data(), 1, out.size(), file) == out.size();
      spilled_bytes_ += out.size();
      out.clear();
    }
  }
  if (ok && !out.empty()) {
    ok = std::fwrite(out.data(), 1, out.size(), file) == out.size();
    spilled_bytes_ += out.size();
  }
  ok = (std::fclose(file) == 0) && ok;
  if (!ok) return IoError("cannot write spill file", path);
  buffer_.size = 0;
  entries_.clear();
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<SortedStream>> ExternalSorter::Finish() {
  if (finished_) {
    return absl::FailedPreconditionError("ExternalSorter::Finish twice");
  }
  finished_ = true;
  SortBuffer();
  auto memory = std::make_unique<MemorySource>(buffer_.data, &entries_);
  if (run_files_.empty()) {
    return std::unique_ptr<SortedStream>(
        std::make_unique<SingleStream>(std::move(memory)));
  }
  // Read buffers share the budget the runs had, within [64 KiB, 4 MiB].
  const size_t per_run = std::clamp<size_t>(
      options_.memory_bytes / (run_files_.size() + 1), 64 << 10, 4 << 20);
  std::vector<std::unique_ptr<Source>> sources;
  for (const std::string& path : run_files_) {
    auto file = std::make_unique<FileSource>(path, per_run);
    if (!file->status().ok()) return file->status();
    sources.push_back(std::move(file));
  }
  sources.push_back(std::move(memory));  // added last: wins ties
  return std::unique_ptr<SortedStream>(
      std::make_unique<MergeStream>(std::move(sources)));
}

}  // namespace trackdb::storage
