// parse_replica_address / parse_publish_address on hand-picked entries.
#include "runtime/routing/replica_address.h"

#include <gtest/gtest.h>

namespace pagedserve::routing {
namespace {

TEST(ReplicaAddress, LocalAndHostPortParse) {
  EXPECT_TRUE(parse_replica_address("local")->local);
  const auto v4 = parse_replica_address("10.0.0.5:7001");
  ASSERT_TRUE(v4);
  EXPECT_FALSE(v4->local);
  EXPECT_EQ(v4->host, "10.0.0.5");
  EXPECT_EQ(v4->port, 7001);
  EXPECT_EQ(v4->to_string(), "10.0.0.5:7001");
  const auto v6 = parse_replica_address("[::1]:65535");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 65535);
  EXPECT_EQ(v6->to_string(), "[::1]:65535");
  EXPECT_EQ(parse_replica_address("engine-3.internal:80")->host, "engine-3.internal");
}

TEST(ReplicaAddress, BadEntriesAreNamed) {
  for (const char* bad : {"", "remote", ":7001", "host:", "host:0", "host:65536", "host:7x",
                          "::1:7001", "[::1:7001", "host:-1"}) {
    const auto parsed = parse_replica_address(bad);
    ASSERT_FALSE(parsed) << bad;
    EXPECT_NE(parsed.err().message.find(std::string("\"") + bad + "\""), std::string::npos)
        << parsed.err().message;
  }
}

TEST(ReplicaAddress, PublishTakesPortZeroButNotLocal) {
  EXPECT_EQ(parse_publish_address("127.0.0.1:0")->port, 0);
  EXPECT_FALSE(parse_publish_address("local"));
}

}  // namespace
}  // namespace pagedserve::routing
