#include "model/glob.h"

#include <cctype>
#include <utility>

namespace trackdb::model {
namespace {

char Fold(char c, bool nocase) {
  return nocase ? static_cast<char>(std::tolower(static_cast<unsigned char>(c)))
                : c;
}

// One item of a character class at *pattern, not its closing ']': an
// escaped character, a range "a-z" or a character. Whether `c` is that
// item; leaves *pattern on the item's last character.
bool MatchClassItem(const char** pattern, size_t* pattern_len, char c,
                    bool nocase) {
  const char* p = *pattern;
  size_t plen = *pattern_len;
  bool matched;
  if (p[0] == '\\' && plen >= 2) {
    ++p;
    --plen;
    matched = Fold(p[0], nocase) == Fold(c, nocase);
  } else if (plen >= 3 && p[1] == '-') {
    char start = Fold(p[0], nocase), end = Fold(p[2], nocase);
    const char folded = Fold(c, nocase);
    if (start > end) std::swap(start, end);
    p += 2;
    plen -= 2;
    matched = folded >= start && folded <= end;
  } else {
    matched = Fold(p[0], nocase) == Fold(c, nocase);
  }
  *pattern = p;
  *pattern_len = plen;
  return matched;
}

// A character class "[...]" at *p, as Redis's stringmatchlen reads it:
// whether `c` is in it. Leaves *p on the class's closing ']' (on its last
// character if it has none), which the caller steps past.
bool MatchCharClass(const char** pattern, size_t* pattern_len, char c,
                    bool nocase) {
  const char* p = *pattern;
  size_t plen = *pattern_len;
  ++p;
  --plen;
  const bool negate = plen > 0 && p[0] == '^';
  if (negate) {
    ++p;
    --plen;
  }
  bool matched = false;
  while (true) {
    if (plen == 0) {
      // Unterminated class: Redis steps back onto the last char.
      --p;
      ++plen;
      break;
    }
    // An escaped ']' is an item: MatchClassItem reads the backslash.
    if (p[0] == ']') break;
    if (MatchClassItem(&p, &plen, c, nocase)) matched = true;
    ++p;
    --plen;
  }
  *pattern = p;
  *pattern_len = plen;
  return negate ? !matched : matched;
}

bool Match(const char* p, size_t plen, const char* s, size_t slen, bool nocase,
           int nesting, bool* skip_longer);

// A '*' at p (and any that follow it): whether some tail of s matches the
// pattern after them.
bool MatchStar(const char* p, size_t plen, const char* s, size_t slen,
               bool nocase, int nesting, bool* skip_longer) {
  while (plen > 1 && p[1] == '*') {
    ++p;
    --plen;
  }
  if (plen == 1) return true;
  while (slen > 0) {
    if (Match(p + 1, plen - 1, s, slen, nocase, nesting + 1, skip_longer)) {
      return true;
    }
    if (*skip_longer) return false;
    ++s;
    --slen;
  }
  *skip_longer = true;
  return false;
}

// `skip_longer` is Redis's cut-off (CVE-2022-36021): once the pattern
// after a '*' matched nowhere in the rest of the string, no earlier '*'
// can help by matching more, so every enclosing '*' gives up at once
// instead of trying each longer match (exponential in the stars).
bool Match(const char* p, size_t plen, const char* s, size_t slen, bool nocase,
           int nesting, bool* skip_longer) {
  if (nesting > 1000) return false;  // Redis's guard against deep recursion
  while (plen > 0 && slen > 0) {
    switch (p[0]) {
      case '*':
        return MatchStar(p, plen, s, slen, nocase, nesting, skip_longer);
      case '?':
        ++s;
        --slen;
        break;
      case '[':
        if (!MatchCharClass(&p, &plen, s[0], nocase)) return false;
        ++s;
        --slen;
        break;
      case '\\':
        if (plen >= 2) {
          ++p;
          --plen;
        }
        [[fallthrough]];
      default:
        if (Fold(p[0], nocase) != Fold(s[0], nocase)) return false;
        ++s;
        --slen;
        break;
    }
    ++p;
    --plen;
    if (slen == 0) {
      while (plen > 0 && *p == '*') {
        ++p;
        --plen;
      }
      break;
    }
  }
  return plen == 0 && slen == 0;
}

}  // namespace

bool GlobMatch(absl::string_view pattern, absl::string_view s, bool nocase) {
  bool skip_longer = false;
  return Match(pattern.data(), pattern.size(), s.data(), s.size(), nocase, 0,
               &skip_longer);
}

}  // namespace trackdb::model
