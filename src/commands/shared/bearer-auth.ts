import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type AuthInfo,
  bearerAuthChallengeResponse,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  type OAuthTokenVerifier,
  verifyBearerToken,
} from "@modelcontextprotocol/server";

/** How long a static token's AuthInfo says it holds: the SDK refuses one without an expiry, and the next request is verified again. */
const STATIC_TOKEN_TTL_S = 3600;

/** A verifier of one static token, compared in constant time. */
function staticTokenVerifier(token: string): OAuthTokenVerifier {
  const expected = Buffer.from(token);
  return {
    async verifyAccessToken(given: string): Promise<AuthInfo> {
      const sent = Buffer.from(given);
      if (sent.length !== expected.length || !timingSafeEqual(sent, expected))
        throw new OAuthError(OAuthErrorCode.InvalidToken, "the token is not this server's");
      return { token: given, clientId: "pmcp-static-token", scopes: [], expiresAt: Math.floor(Date.now() / 1000) + STATIC_TOKEN_TTL_S };
    },
  };
}

/**
 * The MCP authorization model's protected resource, for `pmcp serve --http`: a request without the
 * bearer token the verifier accepts gets the SDK's challenge (401 with `WWW-Authenticate: Bearer`
 * naming where the resource's metadata is, RFC 9728), and the metadata document is served there.
 */
export function bearerGate(token: string) {
  const verifier = staticTokenVerifier(token);
  const metadataUrl = (resource: URL) => getOAuthProtectedResourceMetadataUrl(resource);
  return {
    /** Where the metadata of the resource at `/mcp` is: `/.well-known/oauth-protected-resource/mcp`. */
    metadataPath: new URL(getOAuthProtectedResourceMetadataUrl(new URL("http://127.0.0.1/mcp"))).pathname,
    /** The protected resource's metadata: a static token has no authorization server to name. */
    metadata(resource: URL, res: ServerResponse): void {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ resource: resource.href, bearer_methods_supported: ["header"], resource_name: "pmcp serve" }));
    },
    /** Whether the request carries the token; if not, the challenge is sent and false returned. */
    async admits(req: IncomingMessage, resource: URL, res: ServerResponse): Promise<boolean> {
      const resourceMetadataUrl = metadataUrl(resource);
      try {
        await verifyBearerToken(req.headers.authorization, { verifier, resourceMetadataUrl });
        return true;
      } catch (error) {
        const challenge = bearerAuthChallengeResponse(error, { resourceMetadataUrl });
        res.writeHead(challenge.status, Object.fromEntries(challenge.headers)).end(await challenge.text());
        return false;
      }
    },
  };
}
