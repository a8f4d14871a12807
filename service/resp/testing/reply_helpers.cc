#include "service/resp/testing/reply_helpers.h"

#include <algorithm>

namespace trackdb::resp::testing {

Aggregate Split(const std::string& reply) {
  Aggregate a;
  const size_t eol = reply.find("\r\n");
  if (eol == std::string::npos) return a;
  a.header = reply.substr(0, eol + 2);
  for (size_t pos = eol + 2; pos < reply.size();) {
    const size_t n = CompleteReplyLength(reply.substr(pos));
    if (n == 0) break;
    a.elements.push_back(reply.substr(pos, n));
    pos += n;
  }
  return a;
}

bool IsAggregate(const std::string& reply) {
  return !reply.empty() &&
         (reply[0] == '*' || reply[0] == '%' || reply[0] == '~');
}

std::string Sorted(const std::string& reply, size_t group) {
  if (!IsAggregate(reply)) return reply;
  const Aggregate a = Split(reply);
  std::vector<std::string> groups;
  for (size_t i = 0; i < a.elements.size(); i += group) {
    std::string g;
    for (size_t j = i; j < i + group && j < a.elements.size(); ++j) {
      g += a.elements[j];
    }
    groups.push_back(g);
  }
  std::sort(groups.begin(), groups.end());
  std::string out = a.header;
  for (const std::string& g : groups) out += g;
  return out;
}

std::string SortedScan(const std::string& reply) {
  if (reply.empty() || reply[0] != '*') return reply;
  const Aggregate a = Split(reply);
  if (a.elements.size() != 2) return reply;
  return a.header + a.elements[0] + Sorted(a.elements[1], 2);
}

std::string BulkText(const std::string& bulk) {
  const size_t eol = bulk.find("\r\n");
  return bulk.substr(eol + 2, bulk.size() - eol - 4);
}

std::vector<std::string> BulkTexts(const std::string& reply) {
  std::vector<std::string> out;
  for (const std::string& e : Split(reply).elements) {
    out.push_back(BulkText(e));
  }
  return out;
}

ScanWalk WalkScan(RawClient& client, const std::string& command,
                  const std::string& key,
                  const std::vector<std::string>& options) {
  ScanWalk walk;
  std::string cursor = "0";
  do {
    std::vector<std::string> argv = {command, key, cursor};
    argv.insert(argv.end(), options.begin(), options.end());
    const Aggregate page = Split(client.Call(argv));
    if (page.elements.size() != 2) {
      ADD_FAILURE() << "not a scan reply";
      break;
    }
    cursor = BulkText(page.elements[0]);
    const std::vector<std::string> items = BulkTexts(page.elements[1]);
    walk.page_sizes.push_back(items.size() / 2);
    for (size_t i = 0; i + 1 < items.size(); i += 2) {
      if (!walk.pairs.insert({items[i], items[i + 1]}).second) {
        ++walk.duplicates;
      }
    }
  } while (cursor != "0" && walk.page_sizes.size() < 10000);
  return walk;
}

}  // namespace trackdb::resp::testing
