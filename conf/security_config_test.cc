#include "conf/security_config.h"

#include "conf/config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::conf {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

absl::Status Parse(absl::string_view text) {
  return ParseConfigText(text, "test.textproto").status();
}

TEST(SecurityConfigTest, LoopbackAddresses) {
  for (const char* a :
       {"127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LOCALHOST"}) {
    EXPECT_TRUE(IsLoopbackAddress(a)) << a;
  }
  for (const char* a : {"0.0.0.0", "::", "[::]", "10.0.0.1", "192.168.1.5",
                        "example.com", ""}) {
    EXPECT_FALSE(IsLoopbackAddress(a)) << a;
  }
}

TEST(SecurityConfigTest, ProtectedModeRefusesOpenNonLoopbackDoors) {
  absl::Status s = Parse(R"(server { resp_bind_address: "0.0.0.0" })");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(),
              AllOf(HasSubstr("server.resp_bind_address \"0.0.0.0\""),
                    HasSubstr("protected mode"),
                    HasSubstr("server.protected_mode: \"no\"")));
  s = Parse(R"(server { grpc_bind_address: "::" })");
  EXPECT_THAT(s.message(), HasSubstr("server.grpc_bind_address \"::\""));
}

TEST(SecurityConfigTest, ProtectedModeAllowsAuthOrExplicitNo) {
  EXPECT_TRUE(Parse(R"(server { resp_bind_address: "0.0.0.0"
                                requirepass: "s3cret" })")
                  .ok());
  EXPECT_TRUE(Parse(R"(server { grpc_bind_address: "0.0.0.0"
                                users { name: "bob" password: "pw"
                                        role: USER_ROLE_READ_ONLY } })")
                  .ok());
  EXPECT_TRUE(Parse(R"(server { resp_bind_address: "0.0.0.0"
                                protected_mode: "no" })")
                  .ok());
  EXPECT_THAT(Parse(R"(server { protected_mode: "off" })").message(),
              HasSubstr("server.protected_mode must be one of"));
}

TEST(SecurityConfigTest, TlsNeedsItsFiles) {
  EXPECT_THAT(Parse("server { resp_tls_port: 0 }").message(),
              HasSubstr("server.tls_cert_file must be set"));
  EXPECT_THAT(
      Parse(R"(server { grpc_tls: true tls_cert_file: "c" })").message(),
      HasSubstr("server.tls_key_file must be set"));
  EXPECT_THAT(Parse(R"(server { grpc_tls: true tls_cert_file: "c"
                                tls_key_file: "k" })")
                  .message(),
              HasSubstr("server.tls_ca_cert_file must be set"));
  EXPECT_TRUE(Parse(R"(server { grpc_tls: true tls_cert_file: "c"
                                tls_key_file: "k" tls_auth_clients: "no" })")
                  .ok());
  EXPECT_THAT(Parse(R"(server { tls_auth_clients: "maybe" })").message(),
              HasSubstr("server.tls_auth_clients must be one of"));
  EXPECT_THAT(Parse("server { resp_tls_only: true }").message(),
              HasSubstr("server.resp_tls_only needs server.resp_tls_port"));
}

TEST(SecurityConfigTest, UsersAreChecked) {
  EXPECT_THAT(
      Parse(R"(server { users { password: "p" role: USER_ROLE_ADMIN } })")
          .message(),
      HasSubstr("server.users[0].name must not be empty"));
  EXPECT_THAT(Parse(R"(server { users { name: "a" role: USER_ROLE_ADMIN } })")
                  .message(),
              HasSubstr("exactly one of password, password_sha256"));
  EXPECT_THAT(Parse(R"(server { users { name: "a" password_sha256: "abc"
                                        role: USER_ROLE_ADMIN } })")
                  .message(),
              HasSubstr("server.users[0].password_sha256 must be 64 hex"));
  EXPECT_THAT(
      Parse(R"(server { users { name: "a" password: "p" } })").message(),
      HasSubstr("server.users[0].role must be"));
  EXPECT_THAT(Parse(R"(server {
                  users { name: "a" password: "p" role: USER_ROLE_ADMIN }
                  users { name: "a" password: "q" role: USER_ROLE_ADMIN } })")
                  .message(),
              HasSubstr("server.users[1].name \"a\" is repeated"));
  EXPECT_THAT(Parse(R"(server { requirepass: "x"
                  users { name: "default" password: "p"
                          role: USER_ROLE_ADMIN } })")
                  .message(),
              HasSubstr("\"default\" is the user of server.requirepass"));
}

TEST(SecurityConfigTest, RedactSecretsHidesEveryPassword) {
  v1::TrackdbConfig c;
  c.mutable_server()->set_requirepass("pass-one");
  v1::User* u = c.mutable_server()->add_users();
  u->set_name("alice");
  u->set_password("pass-two");
  v1::User* v = c.mutable_server()->add_users();
  v->set_name("bob");
  v->set_password_sha256(std::string(64, 'a'));
  const std::string text = RedactSecrets(c).DebugString();
  EXPECT_THAT(text,
              AllOf(Not(HasSubstr("pass-one")), Not(HasSubstr("pass-two")),
                    Not(HasSubstr(std::string(64, 'a'))), HasSubstr("alice"),
                    HasSubstr("(redacted)")));
}

}  // namespace
}  // namespace trackdb::conf
