#include "service/resp/protocol/read_buffer.h"

namespace trackdb::resp {

ReadBuffer::ReadBuffer() { Resize(kMinBytes); }

void ReadBuffer::Took(size_t n) {
  if (n >= size_ && size_ < kMaxBytes) {
    Resize(size_ * 2);
  } else if (n <= size_ / 4 && size_ > kMinBytes) {
    Resize(size_ / 2);
  }
}

void ReadBuffer::Resize(size_t size) {
  data_ = std::make_unique<char[]>(size);
  size_ = size;
}

}  // namespace trackdb::resp
