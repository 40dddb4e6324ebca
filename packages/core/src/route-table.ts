/**
 * The specification's route table as data (spec "Endpoints", "Admin API tokens").
 * One row per route: method, path (spec placeholders `{name}`), the credential it
 * takes and, for the 43 routes an admin API token may call, the required scope.
 * The full build's credential gate consults it for every request, and a test
 * compares the routes each build registers with it.
 */

export type RouteMethod = "GET" | "POST" | "PUT" | "DELETE";
export type TokenScope = "read" | "write" | "delete" | "refresh";
export const TOKEN_SCOPES: readonly TokenScope[] = ["read", "write", "delete", "refresh"];

/**
 * - `public`: no credential.
 * - `reader`: login session (any role) or API token with `read`.
 * - `admin`: admin login session or API token with the row's scope.
 * - `session`: admin login session only; API tokens get `session_required`.
 * - `playlist`, `play`: session or preview JWT per `play_require_auth`.
 * - `playback_key`: a playback key in the path.
 */
export type RouteCredential =
  | "public"
  | "reader"
  | "admin"
  | "session"
  | "playlist"
  | "play"
  | "playback_key";

export interface RouteSpec {
  readonly method: RouteMethod;
  readonly path: string;
  readonly credential: RouteCredential;
  /** Scope an API token needs; null for routes outside the token registry. */
  readonly scope: TokenScope | null;
  /** Part of the lite build's seven routes. */
  readonly lite: boolean;
}

const r = (
  method: RouteMethod,
  path: string,
  credential: RouteCredential,
  scope: TokenScope | null = null,
  lite = false,
): RouteSpec => Object.freeze({ method, path, credential, scope, lite });

export const ROUTE_TABLE: readonly RouteSpec[] = Object.freeze([
  // Public
  r("GET", "/", "public"),
  r("GET", "/healthz", "public", null, true),
  r("GET", "/readyz", "public", null, true),
  r("GET", "/metrics", "public"),
  r("GET", "/admin", "public"),
  r("GET", "/admin/*", "public"),
  r("POST", "/v1/auth/login", "public", null, true),
  r("GET", "/v1/epg.xml", "public"),
  r("GET", "/v1/epg.xml.gz", "public"),
  r("GET", "/v1/logo/{id}", "public"),
  // Session or API token with `read`
  r("GET", "/v1/me", "reader", "read"),
  r("GET", "/v1/channels", "reader", "read"),
  r("GET", "/v1/status", "reader", "read"),
  // Playlist and playback
  r("GET", "/v1/playlist.m3u", "playlist", null, true),
  r("GET", "/v1/play/{id}/index.m3u8", "play", null, true),
  r("GET", "/v1/play/{id}/live/{file}", "play", null, true),
  r("GET", "/v1/play/{id}/u/{upstream}", "play", null, true),
  r("GET", "/p/{token}/playlist.m3u", "playback_key"),
  r("GET", "/p/{token}/play/{id}/index.m3u8", "playback_key"),
  r("GET", "/p/{token}/play/{id}/live/{file}", "playback_key"),
  r("GET", "/p/{token}/play/{id}/u/{upstream}", "playback_key"),
  // Session-only
  r("PUT", "/v1/me/credentials", "session"),
  r("GET", "/v1/admin/api-tokens", "session"),
  r("POST", "/v1/admin/api-tokens", "session"),
  r("PUT", "/v1/admin/api-tokens/{id}", "session"),
  r("POST", "/v1/admin/api-tokens/{id}/rotate", "session"),
  r("POST", "/v1/admin/api-tokens/{id}/revoke", "session"),
  r("DELETE", "/v1/admin/api-tokens/{id}", "session"),
  r("GET", "/v1/admin/api-token-logs", "session"),
  // Channels
  r("GET", "/v1/admin/channels", "admin", "read"),
  r("GET", "/v1/admin/channels/{id}", "admin", "read"),
  r("POST", "/v1/admin/channels", "admin", "write"),
  r("PUT", "/v1/admin/channels/{id}", "admin", "write"),
  r("DELETE", "/v1/admin/channels/{id}", "admin", "delete"),
  r("POST", "/v1/admin/channels/enable-all", "admin", "write"),
  r("POST", "/v1/admin/channels/disable-all", "admin", "write"),
  r("PUT", "/v1/admin/channels/reorder", "admin", "write"),
  // Sessions, probes, previews
  r("POST", "/v1/admin/channels/{id}/probe", "admin", "refresh"),
  r("POST", "/v1/admin/source-probes", "admin", "refresh"),
  r("POST", "/v1/admin/channels/{id}/warmup", "admin", "refresh"),
  r("POST", "/v1/admin/channels/{id}/preview", "admin", "refresh"),
  r("DELETE", "/v1/admin/sessions/{id}", "admin", "refresh"),
  // Guide
  r("GET", "/v1/admin/epg/presets", "admin", "read"),
  r("GET", "/v1/admin/epg/sources", "admin", "read"),
  r("POST", "/v1/admin/epg/sources", "admin", "write"),
  r("PUT", "/v1/admin/epg/sources/{id}", "admin", "write"),
  r("DELETE", "/v1/admin/epg/sources/{id}", "admin", "delete"),
  r("GET", "/v1/admin/epg/matches", "admin", "read"),
  r("POST", "/v1/admin/epg/refresh", "admin", "refresh"),
  // Upstreams
  r("GET", "/v1/admin/upstreams", "admin", "read"),
  // Playback keys and their access log
  r("GET", "/v1/admin/access-tokens", "admin", "read"),
  r("POST", "/v1/admin/access-tokens", "admin", "write"),
  r("POST", "/v1/admin/access-tokens/{id}/revoke", "admin", "delete"),
  r("DELETE", "/v1/admin/access-tokens/{id}", "admin", "delete"),
  r("GET", "/v1/admin/access-logs", "admin", "read"),
  r("DELETE", "/v1/admin/access-logs", "admin", "delete"),
  // Settings
  r("GET", "/v1/admin/settings", "admin", "read"),
  r("PUT", "/v1/admin/settings", "admin", "write"),
  // Import and export
  r("POST", "/v1/admin/import/m3u", "admin", "write"),
  r("POST", "/v1/admin/exports/m3u", "admin", "write"),
  // Egress
  r("GET", "/v1/admin/egress", "admin", "read"),
  r("PUT", "/v1/admin/egress", "admin", "write"),
  r("POST", "/v1/admin/egress/proxies", "admin", "write"),
  r("PUT", "/v1/admin/egress/proxies/{id}", "admin", "write"),
  r("DELETE", "/v1/admin/egress/proxies/{id}", "admin", "delete"),
  r("POST", "/v1/admin/egress/rules", "admin", "write"),
  r("PUT", "/v1/admin/egress/rules/{id}", "admin", "write"),
  r("DELETE", "/v1/admin/egress/rules/{id}", "admin", "delete"),
  r("POST", "/v1/admin/egress/test", "admin", "refresh"),
]);

/** The extension switches that add routes (extensions.md; config `extensions`). */
export interface RouteExtensions {
  readonly ts_output: boolean;
}

/**
 * Rows of the extension routes switched on (extensions.md intro): off by default, so
 * with no switch the table is exactly the specification's. `stream.ts` (extensions
 * "MPEG-TS output") takes the credential of `index.m3u8` in both forms.
 */
export function extensionRoutes(ext: RouteExtensions): RouteSpec[] {
  if (!ext.ts_output) return [];
  return [
    r("GET", "/v1/play/{id}/stream.ts", "play", null, true),
    r("GET", "/p/{token}/play/{id}/stream.ts", "playback_key"),
  ];
}

/** The route table of a build with the given extension switches. */
export function routeTableFor(ext: RouteExtensions): readonly RouteSpec[] {
  const extra = extensionRoutes(ext);
  return extra.length === 0 ? ROUTE_TABLE : Object.freeze([...ROUTE_TABLE, ...extra]);
}

/** `/v1/admin/channels/:id` (hono) or `{id}` → the table's `{id}` form. */
export function normalizeRoutePath(path: string): string {
  return path
    .replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, "{$1}")
    .replace(/\/+$/, "")
    .replace(/^$/, "/");
}

export interface RouteMatcher {
  /** The table row for a request, preferring static segments over placeholders. */
  match(method: string, path: string): RouteSpec | undefined;
}

/** Compiles the table into a matcher; HEAD matches GET rows. */
export function createRouteMatcher(table: readonly RouteSpec[] = ROUTE_TABLE): RouteMatcher {
  // Bucketed by method and first path segment (no table path starts with a
  // placeholder), so a request tests a handful of patterns, not all 69.
  const buckets = new Map<string, { spec: RouteSpec; re: RegExp; placeholders: number }[]>();
  for (const spec of table) {
    const pattern = spec.path
      .split("/")
      .map((seg) =>
        seg === "*"
          ? ".*"
          : /^\{.+\}$/.test(seg)
            ? "[^/]+"
            : seg.replace(/[.*+?^$()|[\]\\]/g, "\\$&"),
      )
      .join("/");
    const placeholders = (spec.path.match(/\{/g) ?? []).length + (spec.path.endsWith("*") ? 10 : 0);
    const key = `${spec.method} ${firstSegment(spec.path)}`;
    const list = buckets.get(key) ?? [];
    list.push({ spec, re: new RegExp(`^${pattern}$`), placeholders });
    buckets.set(key, list);
  }
  for (const list of buckets.values()) list.sort((a, b) => a.placeholders - b.placeholders);
  return {
    match(method, path) {
      const list = buckets.get(`${method === "HEAD" ? "GET" : method} ${firstSegment(path)}`);
      if (list === undefined) return undefined;
      for (const c of list) if (c.re.test(path)) return c.spec;
      return undefined;
    },
  };
}

/** `v1` of `/v1/me`, `` of `/`. */
function firstSegment(path: string): string {
  const end = path.indexOf("/", 1);
  return end === -1 ? path.slice(1) : path.slice(1, end);
}
