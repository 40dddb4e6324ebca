import { GatewayError } from "@svc/core/errors";
import { type AppEnv, clientAddress, rateLimitSubject } from "@svc/core/http";
import { redactPath } from "@svc/core/log";
import type { PlayGrant } from "@svc/playback/play";
import type { Context, MiddlewareHandler } from "hono";
import type { AdminContext } from "../context/admin-context.js";
import type { PlaybackKeyRecord } from "../services/playback-keys/key-store.js";
import { checkXtreamLogin, createXtreamLoginGuard } from "../services/xtream/xtream-login.js";
import { keyGrant } from "./key-playback.js";

/** What the access record of one Xtream request names: the key and, for a stream, the channel. */
interface Use {
  key: PlaybackKeyRecord;
  channelId: string | null;
}

/**
 * The Xtream login of the requests (extensions.md "Xtream Codes output"): checks it, limits
 * failures per client like logins, and records every use of a known username in the
 * playback access log (the password masked in the path, as `redactPath` writes it).
 */
export function createXtreamAccess(ctx: AdminContext) {
  const guard = createXtreamLoginGuard(ctx.limiter);
  const uses = new WeakMap<object, Use>();

  /**
   * The key of `username`/`password`, or undefined after a failure (a wrong password, an
   * unknown username, a revoked, disabled or expired key); 429 when the client failed too
   * often. The caller answers the failure in its own form.
   */
  async function login(
    c: Context,
    username: string,
    password: string,
  ): Promise<PlaybackKeyRecord | undefined> {
    const client = rateLimitSubject(clientAddress(c as Context<AppEnv>));
    guard.assertAllowed(client);
    const check = checkXtreamLogin(ctx.keys, username, password);
    if (check.key !== undefined) uses.set(c, { key: check.key, channelId: null });
    if (check.ok) return check.key;
    await guard.failed(client);
    return undefined;
  }

  const unauthorized = () =>
    new GatewayError("unauthorized", "invalid Xtream username or password, or revoked key");

  return {
    login,
    unauthorized,
    /** Names the channel a stream request plays, for its access record. */
    noteChannel(c: Context, channelId: string): void {
      const use = uses.get(c);
      if (use !== undefined) use.channelId = channelId;
    },
    /** Writes the access record of the request once it was answered (`/live/…`, `*.php`). */
    recorder: (async (c, next) => {
      try {
        await next();
      } finally {
        const use = uses.get(c);
        if (use !== undefined)
          ctx.accessLog.record({
            tokenId: use.key.id,
            tokenPrefix: use.key.tokenPrefix,
            path: redactPath(c.req.path),
            channelId: use.channelId,
            status: c.res.status,
            remote: clientAddress(c as Context<AppEnv>),
            createdAt: Date.now(),
          });
      }
    }) as MiddlewareHandler,
    /**
     * The `resolveGrant` of the play routes under `/live/{username}/{password}/play`: the
     * Xtream login in the path; generated URLs keep it there (Xtream apps send it in every
     * URL anyway), so a revoked key or a new password stops the next segment request.
     */
    async resolveGrant(c: Context<AppEnv>, channelId: string): Promise<PlayGrant> {
      const username = c.req.param("username") ?? "";
      const password = c.req.param("password") ?? "";
      const key = await login(c, username, password);
      if (key === undefined) throw unauthorized();
      uses.set(c, { key, channelId });
      // Generated URLs keep the login in the path; every stream under the key takes one of
      // its seats (extensions "Connection limits").
      return keyGrant(
        key,
        `/live/${encodeURIComponent(username)}/${encodeURIComponent(password)}/play`,
      );
    },
  };
}

export type XtreamAccess = ReturnType<typeof createXtreamAccess>;
