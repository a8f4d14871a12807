#include "cluster/key_slot.h"

#include <string>

#include "gtest/gtest.h"

namespace trackdb::cluster {
namespace {

// The CRC16 variant Redis Cluster's specification names: the check value
// of "123456789" is 0x31C3.
TEST(KeySlotTest, Crc16IsXmodem) {
  EXPECT_EQ(Crc16("123456789"), 0x31C3);
  EXPECT_EQ(Crc16(""), 0);
}

// Slots redis-server 7.0 gives (CLUSTER KEYSLOT); the full comparison over
// random keys runs against a live redis-server in
// service/resp/commands/cluster_commands_test.cc.
TEST(KeySlotTest, KnownSlots) {
  EXPECT_EQ(KeySlot("somekey"), 11058);
  EXPECT_EQ(KeySlot("foo{hash_tag}"), 2515);
  EXPECT_EQ(KeySlot("hash_tag"), 2515);
  EXPECT_EQ(KeySlot(""), 0);
  EXPECT_EQ(KeySlot(std::string("\0", 1)), 0);
}

TEST(KeySlotTest, HashTags) {
  EXPECT_EQ(HashedPart("{user1}.following"), "user1");
  EXPECT_EQ(HashedPart("foo{}{bar}"), "foo{}{bar}");  // empty first tag
  EXPECT_EQ(HashedPart("foo{{bar}}zap"), "{bar");
  EXPECT_EQ(HashedPart("foo{bar}{zap}"), "bar");
  EXPECT_EQ(HashedPart("foo{bar"), "foo{bar");
  EXPECT_EQ(HashedPart("}foo{bar}"), "bar");
  EXPECT_EQ(KeySlot("{user1}.a"), KeySlot("{user1}.b"));
}

}  // namespace
}  // namespace trackdb::cluster
