import type { RouteAccess } from "@svc/core/route-table";
import type { TokenScope } from "../services/api-tokens/token-scopes.js";

/**
 * The credentials of the admin API's routes (spec "Endpoints"), for route
 * declarations. The credential gate checks `reader`, `admin` and `session`;
 * `playback_key` is checked by the key gate of `/p/{token}/…`.
 *
 * - `reader`: login session (any role) or API token with `read`.
 * - `admin`: admin login session or API token with the route's scope.
 * - `session`: admin login session only; API tokens get `session_required`.
 */
export type AdminCredential = "reader" | "admin" | "session" | "playback_key" | "xtream";

/** Admin role: a login session, or an API token with `scope` (one of the 43-route registry). */
export const admin = (scope: TokenScope): RouteAccess =>
  Object.freeze({ credential: "admin", scope });

/** Any logged-in role, or an API token with `read`. */
export const READER: RouteAccess = Object.freeze({ credential: "reader", scope: "read" });

/** Admin login session only. */
export const SESSION_ONLY: RouteAccess = Object.freeze({ credential: "session", scope: null });

/** A playback key in the path (`/p/{token}/…`). */
export const PLAYBACK_KEY: RouteAccess = Object.freeze({ credential: "playback_key", scope: null });

/**
 * An Xtream login (extensions.md "Xtream Codes output"): a playback key's `xtream_username`
 * and password, in the query, a form body or the `/live/{username}/{password}/…` path;
 * checked by the Xtream routes themselves.
 */
export const XTREAM_LOGIN: RouteAccess = Object.freeze({ credential: "xtream", scope: null });

/** Credentials the credential gate checks itself; every other kind passes through it. */
export const GATED_CREDENTIALS: ReadonlySet<string> = new Set(["reader", "admin", "session"]);
