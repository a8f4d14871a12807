#include "service/resp/dispatch/option_words.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace trackdb::resp {

absl::string_view CWord(absl::string_view arg) {
  const size_t nul = arg.find('\0');
  return nul == absl::string_view::npos ? arg : arg.substr(0, nul);
}

bool IsWord(absl::string_view arg, absl::string_view word) {
  return absl::EqualsIgnoreCase(CWord(arg), word);
}

std::string ToLower(absl::string_view s) { return absl::AsciiStrToLower(s); }

bool EqualsIgnoreCase(absl::string_view a, absl::string_view b) {
  return absl::EqualsIgnoreCase(a, b);
}

}  // namespace trackdb::resp
