import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type AuthInfo,
  bearerAuthChallengeResponse,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  type OAuthProtectedResourceMetadata,
  type OAuthTokenVerifier,
  verifyBearerToken,
} from "@modelcontextprotocol/server";
import { errorMessage } from "@pmcp-codegen/runtime/internal/text";
import type { ServeAuth } from "../../config/define-config.js";

/** How long a static token's AuthInfo says it holds: the SDK refuses one without an expiry, and the next request is verified again. */
const STATIC_TOKEN_TTL_S = 3600;
/** A verifier that asks its authorization server and hears nothing back fails the request, not hangs it. */
const VERIFY_TIMEOUT_MS = 10_000;

/** Who may call a `pmcp serve` server over HTTP, and what its metadata says. */
export interface BearerAuth {
  verifier: OAuthTokenVerifier;
  /** Issuers published in the metadata; none for a static token, which no authorization server issues. */
  authorizationServers: readonly string[];
  requiredScopes: readonly string[];
  /** The resource as clients reach it; undefined: as each request's Host names it. */
  resource: URL | undefined;
  /** Whether a token must name the resource as its audience: a verifier's must, a static token names none. */
  audience: boolean;
}

/** One static token, compared in constant time; its callers are one caller. */
export function staticTokenAuth(token: string): BearerAuth {
  const expected = Buffer.from(token);
  const verifier: OAuthTokenVerifier = {
    async verifyAccessToken(given: string): Promise<AuthInfo> {
      const sent = Buffer.from(given);
      if (sent.length !== expected.length || !timingSafeEqual(sent, expected))
        throw new OAuthError(OAuthErrorCode.InvalidToken, "the token is not this server's");
      return { token: given, clientId: "pmcp-static-token", scopes: [], expiresAt: Math.floor(Date.now() / 1000) + STATIC_TOKEN_TTL_S };
    },
  };
  return { verifier, authorizationServers: [], requiredScopes: [], resource: undefined, audience: false };
}

/** `pmcp.config`'s `serve.auth`: tokens of an authorization server, checked by the user's verifier. */
export function verifierAuth(auth: ServeAuth): BearerAuth {
  return {
    verifier: auth.verifier,
    authorizationServers: auth.authorizationServers,
    requiredScopes: auth.scopes ?? [],
    resource: auth.resource === undefined ? undefined : new URL(auth.resource),
    audience: true,
  };
}

/**
 * The MCP authorization model's protected resource, for `pmcp serve --http`: a request without a
 * bearer token the verifier accepts gets the SDK's challenge (401, or 403 for a missing scope, with
 * `WWW-Authenticate: Bearer` naming where the resource's metadata is, RFC 9728), and the metadata
 * document is served there. `onVerifierFailure` hears of a verifier that failed (threw something
 * other than a refusal, or did not answer), which the caller sees only as a 500.
 */
export function bearerGate(auth: BearerAuth, onVerifierFailure: (message: string) => void) {
  const resourceOf = (reached: URL) => auth.resource ?? reached;
  const metadataUrl = (reached: URL) => getOAuthProtectedResourceMetadataUrl(resourceOf(reached));
  const localMetadataPath = new URL(getOAuthProtectedResourceMetadataUrl(new URL("http://127.0.0.1/mcp"))).pathname;
  const requiredScopes = [...auth.requiredScopes];
  return {
    /** Whether `path` is the metadata's: at `/.well-known/oauth-protected-resource/mcp`, and where the configured resource puts it. */
    isMetadataPath(path: string, reached: URL): boolean {
      return path === localMetadataPath || path === new URL(metadataUrl(reached)).pathname;
    },
    /** The protected resource's metadata; public, and read by browser clients of other origins. */
    metadata(reached: URL, res: ServerResponse): void {
      const document: OAuthProtectedResourceMetadata = {
        resource: resourceOf(reached).href,
        ...(auth.authorizationServers.length > 0 ? { authorization_servers: [...auth.authorizationServers] } : {}),
        ...(requiredScopes.length > 0 ? { scopes_supported: requiredScopes } : {}),
        bearer_methods_supported: ["header"],
        resource_name: "pmcp serve",
      };
      res.writeHead(200, { "content-type": "application/json", "access-control-allow-origin": "*" }).end(JSON.stringify(document));
    },
    /** Whose the request's token is; if it has none the verifier accepts, the challenge is sent and undefined returned. */
    async admits(req: IncomingMessage, reached: URL, res: ServerResponse): Promise<AuthInfo | undefined> {
      const resourceMetadataUrl = metadataUrl(reached);
      try {
        return await verifyBearerToken(req.headers.authorization, {
          verifier: withDeadline(auth.verifier),
          resourceMetadataUrl,
          requiredScopes,
          ...(auth.audience ? { expectedResource: resourceOf(reached) } : {}),
        });
      } catch (error) {
        if (!(error instanceof OAuthError) || error.code === OAuthErrorCode.ServerError)
          onVerifierFailure(`the token verifier failed: ${errorMessage(error)}`);
        const challenge = bearerAuthChallengeResponse(error, { resourceMetadataUrl, requiredScopes });
        res.writeHead(challenge.status, Object.fromEntries(challenge.headers)).end(await challenge.text());
        return undefined;
      }
    },
  };
}

/** The verifier, answering within VERIFY_TIMEOUT_MS or failing as a server error. */
function withDeadline(verifier: OAuthTokenVerifier): OAuthTokenVerifier {
  return {
    verifyAccessToken(token: string): Promise<AuthInfo> {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new OAuthError(OAuthErrorCode.ServerError, `the token verifier did not answer within ${VERIFY_TIMEOUT_MS} ms`)),
          VERIFY_TIMEOUT_MS,
        );
      });
      return Promise.race([Promise.resolve().then(() => verifier.verifyAccessToken(token)), late]).finally(() => clearTimeout(timer));
    },
  };
}
