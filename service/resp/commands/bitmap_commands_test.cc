// Bitmaps beside a real redis-server 7.0: every edge of Redis's argument
// checks and ranges from a table, then random sequences of bit commands
// mixed with string writes and keys of other types, replies compared
// byte for byte after every command, and the values compared at the end.
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp {
namespace {

using testing::Differential;
using Argv = std::vector<std::string>;

Argv Words(const std::string& line) {
  return absl::StrSplit(line, ' ', absl::SkipEmpty());
}

TEST(BitmapCommandsTest, EdgesAnswerAsRedis) {
  Differential d;
  const char* kLines[] = {
      // SETBIT / GETBIT: offsets, bit values, growth, types.
      "SETBIT b 7 1",
      "SETBIT b 7 1",
      "SETBIT b 100 1",
      "GET b",
      "STRLEN b",
      "SETBIT b -1 1",
      "SETBIT b x 1",
      "SETBIT b 1 2",
      "SETBIT b 1 -1",
      "SETBIT b 4294967296 1",
      "GETBIT b 7",
      "GETBIT b 8",
      "GETBIT b 99999",
      "GETBIT none 3",
      "GETBIT b -1",
      "SETBIT z 0 0",
      "EXISTS z",
      "GET z",
      "HSET h f v",
      "SETBIT h 1 1",
      "GETBIT h 1",
      "BITCOUNT h",
      "BITPOS h 1",
      "BITFIELD h GET u8 0",
      "BITOP AND d h",
      "GEOADD geo 13.4 52.5 m",
      "SETBIT geo 1 1",
      "GETBIT geo 1",
      "BITCOUNT geo",
      "BITPOS geo 0",
      "BITFIELD_RO geo GET i8 0",
      // BITCOUNT: bytes, bits, negatives, bad forms.
      "SET s foobar",
      "BITCOUNT s",
      "BITCOUNT s 0 0",
      "BITCOUNT s 1 1",
      "BITCOUNT s -2 -1",
      "BITCOUNT s 1 -1 BIT",
      "BITCOUNT s 5 30 BIT",
      "BITCOUNT s -5 -1 bit",
      "BITCOUNT s 0 -1 BYTE",
      "BITCOUNT s -1 -2",
      "BITCOUNT s 0",
      "BITCOUNT s 0 1 BITS",
      "BITCOUNT s a 1",
      "BITCOUNT s 0 1 BIT x",
      "BITCOUNT none a b",
      "BITCOUNT none",
      "BITCOUNT s 100 200",
      "BITCOUNT s -100 -50",
      // BITPOS.
      "SET p \xff\xf0",
      "BITPOS p 0",
      "BITPOS p 1",
      "BITPOS p 0 1",
      "BITPOS p 0 0 0",
      "BITPOS p 0 0 -1",
      "BITPOS p 1 12 -1 BIT",
      "BITPOS p 0 3 5 BIT",
      "BITPOS p 0 3 BIT",
      "BITPOS p 2",
      "BITPOS p x",
      "BITPOS p 1 a",
      "BITPOS p 1 0 b",
      "BITPOS p 1 0 1 x",
      "BITPOS none 1",
      "BITPOS none 0 5 9",
      "BITPOS p 1 5 3",
      "SET ones \xff\xff",
      "BITPOS ones 0",
      "BITPOS ones 0 0 -1",
      "BITPOS ones 0 1",
      "BITPOS ones 0 9 BIT",
      "BITPOS ones 0 9 -1 BIT",
      "SET empty x",
      "SETRANGE empty 0 x",
      "BITPOS p 1 -1 -2",
      // BITOP.
      "SET a1 abc",
      "SET a2 \x0f",
      "BITOP AND d1 a1 a2",
      "GET d1",
      "BITOP OR d2 a1 a2 none",
      "GET d2",
      "BITOP XOR d3 a1 a1",
      "GET d3",
      "BITOP NOT d4 a1",
      "GET d4",
      "BITOP NOT d4 a1 a2",
      "BITOP NAND d a1",
      "BITOP AND d5 none none",
      "EXISTS d5",
      "SET d6 x",
      "EXPIRE d6 100",
      "BITOP OR d6 a1",
      "TTL d6",
      "BITOP AND d6 none",
      "EXISTS d6",
      "BITOP OR geo a1",
      "TYPE geo",
      "GET geo",
      "BITOP OR h none",
      "EXISTS h",
      "HSET h2 f v",
      "BITOP OR h2 a1",
      "TYPE h2",
      "BITOP OR a1 a1 a2",
      "GET a1",
      // BITFIELD.
      "BITFIELD f SET u8 0 255 GET u8 0 GET i8 0",
      "GET f",
      "BITFIELD f INCRBY u2 100 1 OVERFLOW SAT INCRBY u2 102 10",
      "BITFIELD f OVERFLOW FAIL INCRBY i8 0 200 GET i8 0",
      "BITFIELD f OVERFLOW WRAP INCRBY i8 0 200",
      "BITFIELD f SET i8 #2 -5 GET i8 #2 GET u4 #4",
      "STRLEN f",
      "BITFIELD f SET i64 64 -1 GET i64 64 GET u63 65 INCRBY i64 64 "
      "-9223372036854775807",
      "BITFIELD f OVERFLOW SAT SET u8 0 -1 SET i4 0 100 GET u8 0",
      "BITFIELD f OVERFLOW FAIL SET u8 200 300",
      "STRLEN f",
      "BITFIELD nf OVERFLOW FAIL INCRBY u2 0 10",
      "EXISTS nf",
      "GET nf",
      "BITFIELD f GET u64 0",
      "BITFIELD f GET i65 0",
      "BITFIELD f GET u0 0",
      "BITFIELD f GET x8 0",
      "BITFIELD f GET u8",
      "BITFIELD f SET u8 0",
      "BITFIELD f GET u8 -1",
      "BITFIELD f GET u8 #-1",
      "BITFIELD f GET u8 #a",
      "BITFIELD f INCRBY u8 0 x",
      "BITFIELD f OVERFLOW xx",
      "BITFIELD f FOO",
      "BITFIELD f OVERFLOW",
      "BITFIELD f",
      "BITFIELD none",
      "BITFIELD none GET u8 99",
      "BITFIELD_RO f GET u8 0 GET i16 3",
      "BITFIELD_RO f SET u8 0 1",
      "BITFIELD_RO f INCRBY u8 0 1 GET u8 x",
      "BITFIELD_RO none GET u8 0",
      "BITFIELD_RO f",
      "BITFIELD f GET U8 0 get I8 0 OVERFLOW Sat incrby U8 0 1000",
  };
  for (const char* line : kLines) {
    const Argv argv = Words(line);
    const auto r = d.Call(argv);
    EXPECT_EQ(r.trackdb, r.redis) << line;
  }
}

class BitWorkload {
 public:
  explicit BitWorkload(uint32_t seed) : rng_(seed) {}

  Argv Next() {
    switch (Pick(12)) {
      case 0:
        return {"SETBIT", Key(), Offset(), Pick(5) ? "1" : "0"};
      case 1:
        return {"GETBIT", Key(), Offset()};
      case 2:
        return Count();
      case 3:
        return Pos();
      case 4:
        return Op();
      case 5:
        return Field(false);
      case 6:
        return Field(true);
      case 7:
        return {"SET", Key(), Value()};
      case 8:
        return {"APPEND", Key(), Value()};
      case 9:
        return {"SETRANGE", Key(), Int(0, 12), Value()};
      case 10:
        return Pick(4) ? Argv{"GET", Key()} : Argv{"DEL", Key()};
      default:
        return Pick(2) ? Argv{"HSET", Key(), "f", "v"}
                       : Argv{"GEOADD", Key(), "13.4", "52.5", "m"};
    }
  }

 private:
  size_t Pick(size_t n) {
    return std::uniform_int_distribution<size_t>(0, n - 1)(rng_);
  }
  std::string Int(int lo, int hi) {
    return absl::StrCat(std::uniform_int_distribution<int>(lo, hi)(rng_));
  }
  std::string Key() { return absl::StrCat("k", Pick(5)); }
  std::string Offset() { return Int(0, Pick(4) ? 40 : 300); }
  std::string Value() {
    static const char* kValues[] = {"",       "a",        "\xff",  "\x0f\xf0",
                                    "foobar", "\x01\x02", "zz\x80"};
    return kValues[Pick(7)];
  }
  const char* Unit() {
    static const char* kUnits[] = {"BYTE", "BIT", "bit"};
    return kUnits[Pick(3)];
  }
  Argv Count() {
    Argv a = {"BITCOUNT", Key()};
    if (Pick(3)) {
      a.push_back(Int(-12, 12));
      a.push_back(Int(-12, 40));
      if (Pick(2)) a.push_back(Unit());
    }
    return a;
  }
  Argv Pos() {
    Argv a = {"BITPOS", Key(), Pick(2) ? "1" : "0"};
    const size_t extra = Pick(4);
    if (extra >= 1) a.push_back(Int(-12, 12));
    if (extra >= 2) a.push_back(Int(-12, 40));
    if (extra >= 3) a.push_back(Unit());
    return a;
  }
  Argv Op() {
    static const char* kOps[] = {"AND", "OR", "XOR", "NOT"};
    const char* op = kOps[Pick(4)];
    Argv a = {"BITOP", op, Key(), Key()};
    if (std::string(op) != "NOT") {
      for (size_t i = Pick(3); i > 0; --i) a.push_back(Key());
    }
    return a;
  }
  std::string Type() { return absl::StrCat(Pick(2) ? "i" : "u", Int(1, 20)); }
  Argv Field(bool read_only) {
    Argv a = {read_only ? "BITFIELD_RO" : "BITFIELD", Key()};
    for (size_t n = Pick(4) + 1; n > 0; --n) {
      const size_t kind = read_only ? 0 : Pick(4);
      const std::string offset = Pick(3) ? Int(0, 60) : "#" + Int(0, 6);
      if (kind == 0) {
        a.insert(a.end(), {"GET", Type(), offset});
      } else if (kind == 1) {
        a.insert(a.end(), {"SET", Type(), offset, Int(-300, 300)});
      } else if (kind == 2) {
        a.insert(a.end(), {"INCRBY", Type(), offset, Int(-300, 300)});
      } else {
        static const char* kOverflow[] = {"WRAP", "SAT", "FAIL"};
        a.insert(a.end(), {"OVERFLOW", kOverflow[Pick(3)]});
      }
    }
    return a;
  }

  std::mt19937 rng_;
};

TEST(BitmapCommandsTest, RandomSequencesMatchRedisAfterEveryCommand) {
  Differential d;
  BitWorkload work(20261204);
  int mismatches = 0, integers = 0;
  for (int i = 0; i < 6000 && mismatches < 10; ++i) {
    const Argv cmd = work.Next();
    const auto r = d.Call(cmd);
    if (r.trackdb != r.redis) {
      ++mismatches;
      ADD_FAILURE() << "command " << i << ": " << ::testing::PrintToString(cmd)
                    << "\nredis:   " << r.redis << "\ntrackdb: " << r.trackdb;
    }
    if (r.redis[0] == ':' && r.redis != ":0\r\n") ++integers;
  }
  EXPECT_GT(integers, 1000);  // the bits did their work, not only errors
  for (int k = 0; k < 5; ++k) {
    const std::string key = absl::StrCat("k", k);
    const auto type = d.Call({"TYPE", key});
    EXPECT_EQ(type.trackdb, type.redis) << key;
    if (type.redis == "+string\r\n") {
      const auto value = d.Call({"GET", key});
      EXPECT_EQ(value.trackdb, value.redis) << key;
    }
  }
}

}  // namespace
}  // namespace trackdb::resp
