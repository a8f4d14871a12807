#include "types/keyspace.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::types {
namespace {

void ExpectRoundTrip(int db, const std::string& key) {
  const std::string name = KeyName(db, key);
  std::optional<DbKey> back = ParseKeyName(name);
  ASSERT_TRUE(back.has_value()) << "db " << db << " key " << key;
  EXPECT_EQ(back->db, db);
  EXPECT_EQ(back->key, key);
}

TEST(KeyspaceTest, DatabaseZeroIsTheCollectionNamespace) {
  // gRPC's collection "fleet" and db 0's key "fleet" are one name.
  EXPECT_EQ(KeyName(0, "fleet"), "fleet");
  EXPECT_EQ(KeyName(0, ""), "");
}

TEST(KeyspaceTest, OtherDatabasesAndEscapedKeysArePrefixed) {
  EXPECT_EQ(KeyName(3, "k"), std::string("\xff\x03k", 3));
  EXPECT_EQ(KeyName(0, "\xffk"), std::string("\xff\x00\xffk", 4));
  EXPECT_NE(KeyName(1, "k"), KeyName(2, "k"));
}

TEST(KeyspaceTest, EveryKeyOfEveryDatabaseRoundTrips) {
  const std::string keys[] = {"",
                              "a",
                              "fleet",
                              std::string("\0", 1),
                              "\xff",
                              "\xffx",
                              std::string("\xff\x00", 2),
                              "\x01\xff"};
  for (int db = 0; db < kDatabases; ++db) {
    for (const std::string& key : keys) ExpectRoundTrip(db, key);
  }
}

TEST(KeyspaceTest, NamesNoKeyMapsToAreRefused) {
  // A database past the last, a lone escape byte, and db 0's escape in
  // front of a key that needs none.
  EXPECT_FALSE(ParseKeyName(std::string("\xff\x10k", 3)).has_value());
  EXPECT_FALSE(ParseKeyName("\xff").has_value());
  EXPECT_FALSE(ParseKeyName(std::string("\xff\x00k", 3)).has_value());
  EXPECT_FALSE(ParseKeyName(std::string("\xff\x00", 2)).has_value());
}

}  // namespace
}  // namespace trackdb::types
