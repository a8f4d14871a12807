#include "service/auth/users.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::auth {
namespace {

using ::testing::Optional;

TEST(UsersTest, Sha256HexIsTheStandardDigest) {
  // sha256("") and sha256("abc"), FIPS 180-2's test vectors.
  EXPECT_EQ(Sha256Hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

v1::ServerConfig TwoUsers() {
  v1::ServerConfig server;
  v1::User* alice = server.add_users();
  alice->set_name("alice");
  alice->set_password("alice-pw");
  alice->set_role(v1::USER_ROLE_READ_ONLY);
  v1::User* bob = server.add_users();
  bob->set_name("bob");
  // Upper-case hex is accepted as well.
  bob->set_password_sha256(
      "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD");
  bob->set_role(v1::USER_ROLE_READ_WRITE);
  return server;
}

TEST(UsersTest, AuthenticatesByPasswordOrHash) {
  const UserTable users(TwoUsers());
  EXPECT_TRUE(users.has_users());
  EXPECT_THAT(users.Authenticate("alice", "alice-pw"),
              Optional(v1::USER_ROLE_READ_ONLY));
  EXPECT_THAT(users.Authenticate("bob", "abc"),
              Optional(v1::USER_ROLE_READ_WRITE));
  EXPECT_EQ(users.Authenticate("alice", "abc"), std::nullopt);
  EXPECT_EQ(users.Authenticate("bob", "alice-pw"), std::nullopt);
  EXPECT_EQ(users.Authenticate("carol", "abc"), std::nullopt);
  EXPECT_EQ(users.Authenticate("ALICE", "alice-pw"), std::nullopt);
}

TEST(UsersTest, RequirepassIsTheDefaultAdmin) {
  v1::ServerConfig server;
  server.set_requirepass("rp");
  UserTable users(server);
  EXPECT_FALSE(users.has_users());
  EXPECT_TRUE(users.auth_required());
  EXPECT_THAT(users.Authenticate("default", "rp"),
              Optional(v1::USER_ROLE_ADMIN));
  EXPECT_EQ(users.Authenticate("default", "nope"), std::nullopt);
  // Live, as CONFIG SET changes it.
  users.set_requirepass("new");
  EXPECT_EQ(users.requirepass(), "new");
  EXPECT_EQ(users.Authenticate("default", "rp"), std::nullopt);
  EXPECT_THAT(users.Authenticate("default", "new"),
              Optional(v1::USER_ROLE_ADMIN));
  // Without requirepass "default" has no password to log in with.
  users.set_requirepass("");
  EXPECT_FALSE(users.auth_required());
  EXPECT_EQ(users.Authenticate("default", ""), std::nullopt);
}

TEST(UsersTest, RolesNest) {
  EXPECT_TRUE(RoleAllows(v1::USER_ROLE_READ_ONLY, Access::kRead));
  EXPECT_FALSE(RoleAllows(v1::USER_ROLE_READ_ONLY, Access::kWrite));
  EXPECT_FALSE(RoleAllows(v1::USER_ROLE_READ_ONLY, Access::kAdmin));
  EXPECT_TRUE(RoleAllows(v1::USER_ROLE_READ_WRITE, Access::kWrite));
  EXPECT_FALSE(RoleAllows(v1::USER_ROLE_READ_WRITE, Access::kAdmin));
  EXPECT_TRUE(RoleAllows(v1::USER_ROLE_ADMIN, Access::kAdmin));
  EXPECT_FALSE(RoleAllows(v1::USER_ROLE_UNSPECIFIED, Access::kRead));
}

}  // namespace
}  // namespace trackdb::auth
