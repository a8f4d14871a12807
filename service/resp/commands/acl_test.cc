// Users and roles on the RESP door (AUTH user pass, HELLO AUTH, ACL WHOAMI,
// -NOPERM), compared byte for byte with a redis-server 7.0 given the same
// users as ACL rules: read-only = +@all -@write -@admin, read-write =
// +@all -@admin, and the default user off (as trackd has no open default
// user once server.users names anyone).
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp {
namespace {

using testing::Differential;
using ::testing::HasSubstr;
using testing::RawClient;

void AddUser(v1::TrackdbConfig* config, const char* name, const char* pass,
             v1::UserRole role) {
  v1::User* u = config->mutable_server()->add_users();
  u->set_name(name);
  u->set_password(pass);
  u->set_role(role);
}

v1::TrackdbConfig Users() {
  v1::TrackdbConfig config;
  // DEBUG on: Redis refuses a disabled DEBUG before it checks ACLs.
  config.mutable_server()->set_enable_debug_command("yes");
  AddUser(&config, "alice", "alice-pw", v1::USER_ROLE_READ_ONLY);
  AddUser(&config, "bob", "bob-pw", v1::USER_ROLE_READ_WRITE);
  return config;
}

const std::vector<std::string> kRedisUsers = {"--enable-debug-command",
                                              "yes",
                                              "--user",
                                              "default",
                                              "off",
                                              "--user",
                                              "alice",
                                              "on",
                                              ">alice-pw",
                                              "~*",
                                              "&*",
                                              "+@all",
                                              "-@write",
                                              "-@admin",
                                              "--user",
                                              "bob",
                                              "on",
                                              ">bob-pw",
                                              "~*",
                                              "&*",
                                              "+@all",
                                              "-@admin"};

std::string StripId(std::string s) {
  const size_t at = s.find("$2\r\nid\r\n:");
  if (at == std::string::npos) return s;
  const size_t end = s.find("\r\n", at + 9);
  return s.erase(at, end - at);
}

TEST(AclTest, EveryoneMustLogInOnceUsersExist) {
  Differential d(Users(), kRedisUsers);
  EXPECT_SAME_REPLY(d, {"PING"});
  EXPECT_SAME_REPLY(d, {"ACL", "WHOAMI"});
  EXPECT_SAME_REPLY(d, {"HELLO", "3"});
  EXPECT_SAME_REPLY(d, {"AUTH", "alice", "wrong"});
  EXPECT_SAME_REPLY(d, {"AUTH", "nobody", "alice-pw"});
  EXPECT_SAME_REPLY(d, {"AUTH", "alice-pw"});  // no default user
  EXPECT_SAME_REPLY(d, {"AUTH", "default", ""});
  EXPECT_SAME_REPLY(d, {"GET", "k"});
  EXPECT_THAT(d.trackdb().Call({"GET", "k"}), HasSubstr("NOAUTH"));
}

TEST(AclTest, ReadOnlyUserGetsNoPermForWrites) {
  Differential d(Users(), kRedisUsers);
  EXPECT_SAME_REPLY(d, {"AUTH", "alice", "alice-pw"});
  EXPECT_SAME_REPLY(d, {"ACL", "WHOAMI"});
  EXPECT_SAME_REPLY(d, {"GET", "k"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v"});
  EXPECT_EQ(
      d.trackdb().Call({"SET", "k", "v"}),
      "-NOPERM this user has no permissions to run the 'set' command\r\n");
  EXPECT_SAME_REPLY(d, {"GEOADD", "fleet", "13.4", "52.5", "car"});
  EXPECT_SAME_REPLY(d, {"DEL", "k"});
  EXPECT_SAME_REPLY(d, {"EXPIRE", "k", "10"});
  EXPECT_SAME_REPLY(d, {"FLUSHDB"});  // runs on a worker
  EXPECT_SAME_REPLY(d, {"CONFIG", "SET", "maxclients", "5"});
  EXPECT_SAME_REPLY(d, {"CONFIG", "GET", "maxclients"});
  EXPECT_SAME_REPLY(d, {"GEOSEARCH", "fleet", "FROMLONLAT", "13.4", "52.5",
                        "BYRADIUS", "10", "km", "ASC"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "fleet"});
  EXPECT_SAME_REPLY(d, {"ACL", "WHOAMI", "extra"});
  EXPECT_THAT(d.trackdb().Call({"CLIENT", "LIST"}), HasSubstr("user=alice"));
}

// A pipelined run of GEOADDs is served as one group (command.h JoinsGroup):
// the group must be refused as each call alone would be.
TEST(AclTest, ReadOnlyUserCannotWriteThroughAGroup) {
  Differential d(Users(), kRedisUsers);
  EXPECT_SAME_REPLY(d, {"AUTH", "alice", "alice-pw"});
  std::string pipeline;
  for (int i = 0; i < 3; ++i) {
    pipeline += testing::EncodeCommand(
        {"GEOADD", "fleet", "13.4", "52.5", "car" + std::to_string(i)});
  }
  d.trackdb().Send(pipeline);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(d.trackdb().ReadReply(),
              "-NOPERM this user has no permissions to run the 'geoadd' "
              "command\r\n");
  }
  EXPECT_EQ(d.trackdb().Call({"EXISTS", "fleet"}), ":0\r\n");
}

TEST(AclTest, ReadWriteUserWritesButIsNoAdmin) {
  Differential d(Users(), kRedisUsers);
  auto hello = d.Call({"HELLO", "3", "AUTH", "bob", "bob-pw"});
  EXPECT_EQ(StripId(hello.trackdb), StripId(hello.redis));
  EXPECT_THAT(hello.trackdb, ::testing::StartsWith("%7\r\n"));
  EXPECT_SAME_REPLY(d, {"ACL", "WHOAMI"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v"});
  EXPECT_SAME_REPLY(d, {"GET", "k"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "fleet", "13.4", "52.5", "car"});
  EXPECT_SAME_REPLY(d, {"CONFIG", "GET", "maxclients"});
  EXPECT_SAME_REPLY(d, {"DEBUG", "SLEEP", "0"});
  EXPECT_SAME_REPLY(d, {"HELLO", "3", "AUTH", "alice", "nope"});
  EXPECT_SAME_REPLY(d, {"ACL", "WHOAMI"});  // still bob
  // Switching user: alice now, with alice's rights.
  EXPECT_SAME_REPLY(d, {"AUTH", "alice", "alice-pw"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "w"});
  EXPECT_SAME_REPLY(d, {"GET", "k"});
}

TEST(AclTest, RequirepassIsTheDefaultUser) {
  v1::TrackdbConfig config = Users();
  config.mutable_server()->set_requirepass("rp");
  Differential d(config,
                 {"--requirepass", "rp", "--user", "alice", "on", ">alice-pw",
                  "~*", "&*", "+@all", "-@write", "-@admin"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v"});
  EXPECT_SAME_REPLY(d, {"AUTH", "wrong"});
  EXPECT_SAME_REPLY(d, {"AUTH", "rp"});
  EXPECT_SAME_REPLY(d, {"ACL", "WHOAMI"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v"});
  EXPECT_SAME_REPLY(d, {"CONFIG", "GET", "maxclients"});
  EXPECT_SAME_REPLY(d, {"AUTH", "default", "rp"});
  EXPECT_SAME_REPLY(d, {"AUTH", "alice", "alice-pw"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v"});
}

TEST(AclTest, WithoutAuthEveryoneIsTheDefaultAdmin) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"ACL", "WHOAMI"});
  EXPECT_SAME_REPLY(d, {"AUTH", "default", "anything"});
  EXPECT_SAME_REPLY(d, {"AUTH", "x"});
  EXPECT_SAME_REPLY(d, {"CONFIG", "GET", "maxclients"});
}

}  // namespace
}  // namespace trackdb::resp
