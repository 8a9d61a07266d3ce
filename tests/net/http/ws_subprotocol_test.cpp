// The Sec-WebSocket-Protocol values of /v1/stream (net/http/ws_subprotocol.h). The hex
// strings below were written by hand from the keys' UTF-8 bytes (RFC 3629), not by the code
// under test: "sk-test" is 73 6b 2d 74 65 73 74, "clé" is 63 6c c3 a9.
#include "net/http/ws_subprotocol.h"

#include <gtest/gtest.h>

namespace pagedserve::net {
namespace {

TEST(WsSubprotocol, PagedserveAlone) {
  const offered_subprotocols offered = parse_offered_subprotocols("pagedserve");
  EXPECT_TRUE(offered.pagedserve);
  EXPECT_FALSE(offered.api_key.has_value());
}

TEST(WsSubprotocol, KeyFromHexNextToPagedserve) {
  const offered_subprotocols offered =
      parse_offered_subprotocols("pagedserve, pagedserve.api-key.736b2d74657374");
  EXPECT_TRUE(offered.pagedserve);
  ASSERT_TRUE(offered.api_key.has_value());
  EXPECT_EQ(*offered.api_key, "sk-test");
}

TEST(WsSubprotocol, KeyIsUtf8BytesAndHexIsCaseInsensitive) {
  EXPECT_EQ(parse_offered_subprotocols("pagedserve.api-key.636cC3A9").api_key, "cl\xc3\xa9");
}

TEST(WsSubprotocol, OptionalWhitespaceAroundEntries) {
  const offered_subprotocols offered =
      parse_offered_subprotocols(" \tpagedserve.api-key.6b ,\tpagedserve ");
  EXPECT_TRUE(offered.pagedserve);
  EXPECT_EQ(offered.api_key, "k");
}

TEST(WsSubprotocol, MalformedHexIsNoKey) {
  EXPECT_FALSE(parse_offered_subprotocols("pagedserve.api-key.abc").api_key);  // odd length
  EXPECT_FALSE(parse_offered_subprotocols("pagedserve.api-key.zz").api_key);   // not hex
  EXPECT_FALSE(parse_offered_subprotocols("pagedserve.api-key.").api_key);     // empty
  EXPECT_FALSE(parse_offered_subprotocols("pagedserve.api-key").api_key);      // no dot
  EXPECT_FALSE(parse_offered_subprotocols("xpagedserve.api-key.6b").api_key);  // other token
}

TEST(WsSubprotocol, FirstKeyWins) {
  EXPECT_EQ(parse_offered_subprotocols("pagedserve.api-key.61,pagedserve.api-key.62").api_key, "a");
}

TEST(WsSubprotocol, OtherProtocolsAreNotPagedserve) {
  const offered_subprotocols offered = parse_offered_subprotocols("graphql-ws, pagedserve.v2");
  EXPECT_FALSE(offered.pagedserve);
  EXPECT_FALSE(offered.api_key);
  EXPECT_FALSE(parse_offered_subprotocols("").pagedserve);
}

TEST(WsSubprotocol, AuthorizationHeaderComesFirst) {
  EXPECT_EQ(upgrade_authorization("Bearer from-header", "pagedserve.api-key.6b"),
            "Bearer from-header");
}

TEST(WsSubprotocol, KeyBecomesBearerCredentials) {
  EXPECT_EQ(upgrade_authorization("", "pagedserve, pagedserve.api-key.736b2d74657374"),
            "Bearer sk-test");
  EXPECT_EQ(upgrade_authorization("", "pagedserve"), "");
  EXPECT_EQ(upgrade_authorization("", "pagedserve.api-key.0"), "");
}

}  // namespace
}  // namespace pagedserve::net
