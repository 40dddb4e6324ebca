import { createHmac, timingSafeEqual } from "node:crypto";

/** The request header a forwarding instance sends its token in (never logged). */
export const INSTANCE_TOKEN_HEADER = "x-svc-instance-token";

/** How long a token is good for: one forwarded request, sent at once. */
const TOKEN_TTL_MS = 30_000;
/** Clock difference between instances tolerated (the 30 s of JWT verification, spec "Limits"). */
const SKEW_MS = 30_000;
/** Domain separation: the shared key also signs `u/` URLs and viewer leases. */
const KEY_LABEL = "svc instance forward v1";

/**
 * What the forwarding instance already decided for a play request (credential, scope,
 * viewer lease): the owner serves it as if it had admitted the request itself.
 */
export interface ForwardedPlay {
  /** Absolute URL prefix of generated URLs, ending with `/{id}/`, as the player sees it. */
  readonly prefix: string;
  /** "" or `&…`: the credential query and viewer lease written into generated URLs. */
  readonly query: string;
  /** The player's address, so the owner's per-client parking limit counts the player. */
  readonly client: string;
  /** Immutable media may be offered to shared caches (`PlayRequest.sharedCache`). */
  readonly sharedCache: boolean;
}

/** What a token is bound to: one GET of one file of one channel, with its query. */
export interface ForwardTarget {
  readonly channelId: string;
  /** `index.m3u8` or `live/{file}`. */
  readonly resource: string;
  /** The query the forwarded request carries (`g` and the `_HLS_` directives), "" or `?…`. */
  readonly search: string;
}

export interface InstanceTokens {
  mint(play: ForwardedPlay, target: ForwardTarget, now?: number): string;
  /** The forwarded play, or undefined when the token is malformed, forged, expired or for another target. */
  verify(token: string, target: ForwardTarget, now?: number): ForwardedPlay | undefined;
}

/**
 * Tokens of instance-to-instance play requests: `v1.{payload}.{mac}`, an HMAC-SHA256 with
 * a key derived from the shared `security.signing_key` over the payload and the request
 * it is bound to. Short-lived and bound to one file, so a token that leaked could only
 * replay that one request for half a minute; it carries no credential of its own.
 *
 * @example
 * const tokens = createInstanceTokens(signingKey);
 * const t = tokens.mint({ prefix, query, client }, { channelId: "news", resource: "index.m3u8", search: "" });
 * tokens.verify(t, { channelId: "news", resource: "index.m3u8", search: "" }); // { prefix, query, client }
 */
export function createInstanceTokens(signingKey: Buffer): InstanceTokens {
  const key = createHmac("sha256", signingKey).update(KEY_LABEL).digest();
  const mac = (payload: string, t: ForwardTarget) =>
    createHmac("sha256", key)
      .update(`${payload}\n${t.channelId}\n${t.resource}\n${t.search}`)
      .digest();
  return {
    mint(play, target, now = Date.now()) {
      const payload = Buffer.from(
        JSON.stringify({
          p: play.prefix,
          q: play.query,
          a: play.client,
          s: play.sharedCache,
          e: now + TOKEN_TTL_MS,
        }),
      ).toString("base64url");
      return `v1.${payload}.${mac(payload, target).toString("base64url")}`;
    },
    verify(token, target, now = Date.now()) {
      const parts = token.split(".");
      if (parts.length !== 3 || parts[0] !== "v1") return undefined;
      const [, payload = "", sig = ""] = parts;
      const given = Buffer.from(sig, "base64url");
      const want = mac(payload, target);
      if (given.length !== want.length || !timingSafeEqual(given, want)) return undefined;
      let claims: unknown;
      try {
        claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
      } catch {
        return undefined;
      }
      if (!isClaims(claims)) return undefined;
      if (claims.e + SKEW_MS < now || claims.e > now + TOKEN_TTL_MS + SKEW_MS) return undefined;
      return { prefix: claims.p, query: claims.q, client: claims.a, sharedCache: claims.s };
    },
  };
}

function isClaims(v: unknown): v is { p: string; q: string; a: string; s: boolean; e: number } {
  if (typeof v !== "object" || v === null) return false;
  const o = v as Record<string, unknown>;
  return (
    typeof o.p === "string" &&
    typeof o.q === "string" &&
    typeof o.a === "string" &&
    typeof o.s === "boolean" &&
    typeof o.e === "number" &&
    Number.isFinite(o.e)
  );
}
