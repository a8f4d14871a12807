// The RESP request parser (service/resp/protocol/request_parser.h) on arbitrary
// bytes. Besides not crashing, it checks that the parse does not depend on
// how the bytes arrive: fed whole and fed in chunks, the same commands come
// out, in order, and the same protocol error ends them. The one allowed
// difference is Redis's own: a "too big" error depends on how much of an
// unfinished line is buffered (networking.c checks the query buffer's
// length, not the line's), so after one the runs only share a prefix.
//
// Input: a byte choosing the limits, a byte choosing the chunk size, then
// the wire bytes.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/fuzz_input.h"
#include "service/resp/protocol/request_parser.h"

namespace trackdb::fuzz {
namespace {

using resp::ParserLimits;
using resp::RequestParser;

struct Parse {
  std::vector<std::vector<std::string>> commands;
  std::string error;  // empty: the input ended waiting for more
};

// Drains every command the parser can give; false after an error.
bool Drain(RequestParser& parser, const ParserLimits& limits, Parse* out) {
  std::vector<std::string> argv;
  std::string error;
  while (true) {
    const RequestParser::Result r = parser.Next(limits, &argv, &error);
    if (r == RequestParser::Result::kNeedMore) return true;
    if (r == RequestParser::Result::kError) {
      FUZZ_CHECK(!error.empty()) << "an error without text";
      out->error = error;
      return false;
    }
    FUZZ_CHECK(!argv.empty()) << "an empty command was not skipped";
    out->commands.push_back(argv);
  }
}

Parse ParseInChunks(absl::string_view wire, size_t chunk,
                    const ParserLimits& limits) {
  RequestParser parser;
  Parse out;
  for (size_t pos = 0; pos < wire.size(); pos += chunk) {
    parser.Feed(wire.substr(pos, chunk));
    if (!Drain(parser, limits, &out)) return out;
  }
  FUZZ_CHECK(parser.buffered() <= wire.size());
  return out;
}

ParserLimits LimitsFrom(uint8_t b) {
  ParserLimits limits;
  // Small limits reach the limit checks with small inputs. The bulk limit
  // stays at most 1 MiB: the parser reserves a declared bulk's room, as
  // Redis does, and 512 MiB per input would only measure the allocator.
  static constexpr int64_t kBulk[] = {0, 3, 100, 1 << 20};
  static constexpr int64_t kMultibulk[] = {1, 4, 1000, 1024 * 1024};
  static constexpr size_t kInline[] = {4, 64, 1024, 64 * 1024};
  limits.max_bulk_len = kBulk[b & 3];
  limits.max_multibulk_len = kMultibulk[(b >> 2) & 3];
  limits.max_inline_len = kInline[(b >> 4) & 3];
  limits.authenticated = (b & 0x40) == 0;
  return limits;
}

bool TooBig(const Parse& p) { return absl::StrContains(p.error, "too big"); }

}  // namespace
}  // namespace trackdb::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trackdb::fuzz;
  FuzzInput in(data, size);
  const ParserLimits limits = LimitsFrom(in.Byte());
  const size_t chunk = 1 + in.Byte() % 17;
  const absl::string_view wire = in.Rest();

  const Parse whole = ParseInChunks(wire, wire.size() + 1, limits);
  const Parse split = ParseInChunks(wire, chunk, limits);
  const size_t common = std::min(whole.commands.size(), split.commands.size());
  for (size_t i = 0; i < common; ++i) {
    FUZZ_CHECK(whole.commands[i] == split.commands[i])
        << "command " << i << " differs when fed in chunks of " << chunk;
  }
  if (!TooBig(whole) && !TooBig(split)) {
    FUZZ_CHECK(whole.commands.size() == split.commands.size())
        << whole.commands.size() << " commands whole, " << split.commands.size()
        << " in chunks of " << chunk;
    FUZZ_CHECK(whole.error == split.error)
        << "whole: '" << whole.error << "', in chunks: '" << split.error << "'";
  }

  std::vector<std::string> args;
  trackdb::resp::SplitInlineArgs(wire, &args);
  return 0;
}
