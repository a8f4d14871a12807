// PFADD, PFCOUNT, PFMERGE and PFDEBUG compared byte for byte with a real
// redis-server 7.0, the values themselves (GET) included: a trackdb HLL
// is the string Redis would hold.
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp {
namespace {

using Argv = std::vector<std::string>;
using testing::Differential;

// PFADD of `n` elements "<prefix><i>", `per_call` a call, each reply and
// the value after each call compared.
void AddMany(Differential& d, const std::string& key, const std::string& prefix,
             int n, int per_call) {
  for (int i = 0; i < n; i += per_call) {
    Argv argv = {"PFADD", key};
    for (int j = i; j < i + per_call && j < n; ++j) {
      argv.push_back(absl::StrCat(prefix, j));
    }
    EXPECT_SAME_REPLY(d, argv);
    EXPECT_SAME_REPLY(d, {"GET", key});
  }
}

TEST(HyperLogLogCommandsTest, AddCountAndTheBytesStored) {
  Differential d;
  testing::ExpectSameReplies(d, {
                                    {"PFADD", "h", "a", "b", "c"},
                                    {"GET", "h"},
                                    {"PFCOUNT", "h"},
                                    {"GET", "h"},  // the estimate cached
                                    {"PFADD", "h", "a"},
                                    {"PFADD", "h"},
                                    {"PFADD", "new"},
                                    {"GET", "new"},
                                    {"PFCOUNT", "new", "h", "absent"},
                                    {"PFCOUNT", "absent"},
                                    {"EXISTS", "absent"},
                                    {"PFDEBUG", "ENCODING", "h"},
                                    {"PFDEBUG", "DECODE", "h"},
                                    {"TYPE", "h"},
                                    {"STRLEN", "h"},
                                });
  // Sparse until a register needs more than 32 or the value outgrows
  // hll-sparse-max-bytes, then dense.
  AddMany(d, "big", "element:", 3000, 150);
  testing::ExpectSameReplies(d, {
                                    {"PFDEBUG", "ENCODING", "big"},
                                    {"PFCOUNT", "big"},
                                    {"GET", "big"},
                                    {"PFCOUNT", "big", "h"},
                                });
}

TEST(HyperLogLogCommandsTest, MergeSparseAndDense) {
  Differential d;
  AddMany(d, "s1", "a", 200, 50);
  AddMany(d, "s2", "b", 300, 100);
  AddMany(d, "dense", "c", 4000, 500);
  testing::ExpectSameReplies(d, {
                                    {"PFMERGE", "m", "s1", "s2"},
                                    {"GET", "m"},
                                    {"PFDEBUG", "ENCODING", "m"},
                                    {"PFMERGE", "m", "absent"},
                                    {"GET", "m"},
                                    {"PFMERGE", "m2", "s1", "dense", "s1"},
                                    {"GET", "m2"},
                                    {"PFCOUNT", "m2"},
                                    {"PFMERGE", "s1", "s2"},
                                    {"GET", "s1"},
                                    {"PFMERGE", "lone"},
                                    {"GET", "lone"},
                                    {"PFCOUNT", "s1", "s2", "dense"},
                                });
}

TEST(HyperLogLogCommandsTest, DebugSubcommands) {
  Differential d;
  AddMany(d, "h", "x", 40, 10);
  testing::ExpectSameReplies(d, {
                                    {"PFDEBUG", "DECODE", "h"},
                                    {"PFDEBUG", "GETREG", "h"},
                                    {"PFDEBUG", "ENCODING", "h"},
                                    {"GET", "h"},
                                    {"PFDEBUG", "TODENSE", "h"},
                                    {"PFDEBUG", "DECODE", "h"},
                                    {"PFDEBUG", "NOPE", "h"},
                                    {"PFDEBUG", "ENCODING", "absent"},
                                    {"PFDEBUG", "ENCODING"},
                                    {"PFSELFTEST"},
                                });
}

TEST(HyperLogLogCommandsTest, WrongTypesAndCorruptValues) {
  Differential d;
  testing::ExpectSameReplies(
      d, {
             {"SET", "str", "not an hll at all"},
             {"HSET", "hash", "f", "v"},
             {"PFADD", "str", "x"},
             {"PFCOUNT", "str"},
             {"PFCOUNT", "absent", "str"},
             {"PFMERGE", "dst", "str"},
             {"EXISTS", "dst"},
             {"PFADD", "hash", "x"},
             // Elements are not keys: one naming a string or a hash is
             // just an element.
             {"PFADD", "elements", "str", "hash", "elements"},
             {"GET", "elements"},
             {"PFCOUNT", "hash"},
             {"PFMERGE", "hash", "absent"},
             {"PFDEBUG", "GETREG", "str"},
             {"GET", "str"},
             // A sparse value whose runs cover too few registers.
             {"SET", "bad",
              std::string("HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80\x7f\x00", 18)},
             {"PFCOUNT", "bad"},
             {"PFCOUNT", "bad", "absent"},
             {"PFMERGE", "dst", "bad"},
             {"PFDEBUG", "TODENSE", "bad"},
             // A dense one of the wrong size, and an unknown encoding.
             {"SET", "short",
              std::string("HYLL\x00\0\0\0\0\0\0\0\0\0\0\0\x01", 17)},
             {"PFCOUNT", "short"},
             {"SET", "enc",
              std::string("HYLL\x02\0\0\0\0\0\0\0\0\0\0\0\x7f\xff", 18)},
             {"PFADD", "enc", "x"},
             {"PFADD"},
             {"PFMERGE"},
         });
}

TEST(HyperLogLogCommandsTest, SparseMaxBytesIsLive) {
  Differential d;
  testing::ExpectSameReplies(
      d, {
             {"CONFIG", "GET", "hll-sparse-max-bytes"},
             {"CONFIG", "SET", "hll-sparse-max-bytes", "60"},
             {"CONFIG", "GET", "hll-sparse-max-bytes"},
             {"CONFIG", "SET", "hll-sparse-max-bytes", "-1"},
             {"CONFIG", "SET", "hll-sparse-max-bytes", "1kb"},
             {"CONFIG", "GET", "hll-sparse-max-bytes"},
             {"CONFIG", "SET", "hll-sparse-max-bytes", "60"},
         });
  AddMany(d, "h", "e", 40, 4);
  EXPECT_SAME_REPLY(d, {"PFDEBUG", "ENCODING", "h"});
  EXPECT_SAME_REPLY(d, {"CONFIG", "SET", "hll-sparse-max-bytes", "3000"});
}

// Random adds, counts and merges over three keys, the values compared
// after every command.
TEST(HyperLogLogCommandsTest, RandomWorkloadMatchesRedis) {
  Differential d;
  std::mt19937 rng(20261204);
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  const char* keys[] = {"k0", "k1", "k2"};
  for (int i = 0; i < 400; ++i) {
    const std::string key = keys[pick(3)];
    Argv argv;
    switch (pick(5)) {
      case 0:
        argv = {"PFCOUNT", key};
        break;
      case 1:
        argv = {"PFMERGE", key, keys[pick(3)], keys[pick(3)]};
        break;
      case 2:
        argv = {"PFCOUNT", key, keys[pick(3)]};
        break;
      default:
        argv = {"PFADD", key};
        for (int n = pick(40); n > 0; --n) {
          argv.push_back(absl::StrCat(pick(pick(2) ? 50 : 100000)));
        }
    }
    EXPECT_SAME_REPLY(d, argv);
    EXPECT_SAME_REPLY(d, {"GET", key});
  }
}

}  // namespace
}  // namespace trackdb::resp
