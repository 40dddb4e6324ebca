/**
 * The specification's route table ("Endpoints", "Admin API tokens", "Lite build") as
 * the tests' own oracle: method, path (`{name}` placeholders), credential, the scope an
 * API token needs (null: outside the 43-route registry) and whether the lite build has
 * it. The gateway derives its table from its route declarations; the route-table suite
 * compares that with this one, so both must change when the specification does.
 */
export interface SpecRoute {
  readonly method: "GET" | "POST" | "PUT" | "DELETE";
  readonly path: string;
  readonly credential: string;
  readonly scope: string | null;
  readonly lite: boolean;
}

const row = (
  method: SpecRoute["method"],
  path: string,
  credential: string,
  scope: string | null,
  lite = false,
): SpecRoute => ({ method, path, credential, scope, lite });

export const SPEC_ROUTES: readonly SpecRoute[] = [
  // Public
  row("GET", "/", "public", null),
  row("GET", "/healthz", "public", null, true),
  row("GET", "/readyz", "public", null, true),
  row("GET", "/metrics", "public", null),
  row("GET", "/admin", "public", null),
  row("GET", "/admin/*", "public", null),
  row("POST", "/v1/auth/login", "public", null, true),
  row("GET", "/v1/epg.xml", "public", null),
  row("GET", "/v1/epg.xml.gz", "public", null),
  row("GET", "/v1/logo/{id}", "public", null),
  // Session or API token with `read`
  row("GET", "/v1/me", "reader", "read"),
  row("GET", "/v1/channels", "reader", "read"),
  row("GET", "/v1/status", "reader", "read"),
  // Playlist and playback
  row("GET", "/v1/playlist.m3u", "playlist", null, true),
  row("GET", "/v1/play/{id}/index.m3u8", "play", null, true),
  row("GET", "/v1/play/{id}/live/{file}", "play", null, true),
  row("GET", "/v1/play/{id}/u/{upstream}", "play", null, true),
  row("GET", "/p/{token}/playlist.m3u", "playback_key", null),
  row("GET", "/p/{token}/play/{id}/index.m3u8", "playback_key", null),
  row("GET", "/p/{token}/play/{id}/live/{file}", "playback_key", null),
  row("GET", "/p/{token}/play/{id}/u/{upstream}", "playback_key", null),
  // Session-only
  row("PUT", "/v1/me/credentials", "session", null),
  row("GET", "/v1/admin/api-tokens", "session", null),
  row("POST", "/v1/admin/api-tokens", "session", null),
  row("PUT", "/v1/admin/api-tokens/{id}", "session", null),
  row("POST", "/v1/admin/api-tokens/{id}/rotate", "session", null),
  row("POST", "/v1/admin/api-tokens/{id}/revoke", "session", null),
  row("DELETE", "/v1/admin/api-tokens/{id}", "session", null),
  row("GET", "/v1/admin/api-token-logs", "session", null),
  // Channels
  row("GET", "/v1/admin/channels", "admin", "read"),
  row("GET", "/v1/admin/channels/{id}", "admin", "read"),
  row("POST", "/v1/admin/channels", "admin", "write"),
  row("PUT", "/v1/admin/channels/{id}", "admin", "write"),
  row("DELETE", "/v1/admin/channels/{id}", "admin", "delete"),
  row("POST", "/v1/admin/channels/enable-all", "admin", "write"),
  row("POST", "/v1/admin/channels/disable-all", "admin", "write"),
  row("PUT", "/v1/admin/channels/reorder", "admin", "write"),
  // Sessions, probes, previews
  row("POST", "/v1/admin/channels/{id}/probe", "admin", "refresh"),
  row("POST", "/v1/admin/source-probes", "admin", "refresh"),
  row("POST", "/v1/admin/channels/{id}/warmup", "admin", "refresh"),
  row("POST", "/v1/admin/channels/{id}/preview", "admin", "refresh"),
  row("DELETE", "/v1/admin/sessions/{id}", "admin", "refresh"),
  // Guide
  row("GET", "/v1/admin/epg/presets", "admin", "read"),
  row("GET", "/v1/admin/epg/sources", "admin", "read"),
  row("POST", "/v1/admin/epg/sources", "admin", "write"),
  row("PUT", "/v1/admin/epg/sources/{id}", "admin", "write"),
  row("DELETE", "/v1/admin/epg/sources/{id}", "admin", "delete"),
  row("GET", "/v1/admin/epg/matches", "admin", "read"),
  row("POST", "/v1/admin/epg/refresh", "admin", "refresh"),
  // Upstreams
  row("GET", "/v1/admin/upstreams", "admin", "read"),
  // Playback keys and their access log
  row("GET", "/v1/admin/access-tokens", "admin", "read"),
  row("POST", "/v1/admin/access-tokens", "admin", "write"),
  row("POST", "/v1/admin/access-tokens/{id}/revoke", "admin", "delete"),
  row("DELETE", "/v1/admin/access-tokens/{id}", "admin", "delete"),
  row("GET", "/v1/admin/access-logs", "admin", "read"),
  row("DELETE", "/v1/admin/access-logs", "admin", "delete"),
  // Settings
  row("GET", "/v1/admin/settings", "admin", "read"),
  row("PUT", "/v1/admin/settings", "admin", "write"),
  // Import and export
  row("POST", "/v1/admin/import/m3u", "admin", "write"),
  row("POST", "/v1/admin/exports/m3u", "admin", "write"),
  // Egress
  row("GET", "/v1/admin/egress", "admin", "read"),
  row("PUT", "/v1/admin/egress", "admin", "write"),
  row("POST", "/v1/admin/egress/proxies", "admin", "write"),
  row("PUT", "/v1/admin/egress/proxies/{id}", "admin", "write"),
  row("DELETE", "/v1/admin/egress/proxies/{id}", "admin", "delete"),
  row("POST", "/v1/admin/egress/rules", "admin", "write"),
  row("PUT", "/v1/admin/egress/rules/{id}", "admin", "write"),
  row("DELETE", "/v1/admin/egress/rules/{id}", "admin", "delete"),
  row("POST", "/v1/admin/egress/test", "admin", "refresh"),
];

/** Extensions "MPEG-TS output" (`extensions.ts_output`): both credential forms of `stream.ts`. */
export const TS_OUTPUT_ROUTES: readonly SpecRoute[] = [
  row("GET", "/v1/play/{id}/stream.ts", "play", null, true),
  row("GET", "/p/{token}/play/{id}/stream.ts", "playback_key", null),
];

/**
 * Extensions "HDHomeRun" (`extensions.hdhomerun.enabled`, full build): the contract's
 * table under `/p/{token}/hdhr` (`auto/{channel}` is `auto/v{GuideNumber}`).
 */
export const HDHOMERUN_ROUTES: readonly SpecRoute[] = [
  row("GET", "/p/{token}/hdhr/discover.json", "playback_key", null),
  row("GET", "/p/{token}/hdhr/lineup.json", "playback_key", null),
  row("GET", "/p/{token}/hdhr/lineup_status.json", "playback_key", null),
  row("POST", "/p/{token}/hdhr/lineup.post", "playback_key", null),
  row("GET", "/p/{token}/hdhr/device.xml", "playback_key", null),
  row("GET", "/p/{token}/hdhr/guide.xml", "playback_key", null),
  row("GET", "/p/{token}/hdhr/auto/{channel}", "playback_key", null),
];

/**
 * Extensions "Xtream Codes output" (`extensions.xtream.enabled`, full build): the contract's
 * routes (the three `/live/{username}/{password}/{stream_id}…` forms are one route whose last
 * segment is `{stream_id}`, `{stream_id}.ts` or `{stream_id}.m3u8`), the rotation of a key's
 * Xtream password, and the play routes under an Xtream login that `.ts` and `.m3u8` are
 * answered by (docs/xtream.md).
 */
export const XTREAM_ROUTES: readonly SpecRoute[] = [
  row("GET", "/player_api.php", "xtream", null),
  row("POST", "/player_api.php", "xtream", null),
  row("GET", "/get.php", "xtream", null),
  row("POST", "/get.php", "xtream", null),
  row("GET", "/xmltv.php", "xtream", null),
  row("GET", "/live/{username}/{password}/{stream}", "xtream", null),
  row("GET", "/live/{username}/{password}/play/{id}/index.m3u8", "xtream", null),
  row("GET", "/live/{username}/{password}/play/{id}/stream.ts", "xtream", null),
  row("GET", "/live/{username}/{password}/play/{id}/live/{file}", "xtream", null),
  row("GET", "/live/{username}/{password}/play/{id}/u/{upstream}", "xtream", null),
  row("POST", "/v1/admin/access-tokens/{id}/xtream-password", "admin", "write"),
];

/**
 * Extensions "M3U provider sources" (`extensions.m3u_sources`, full build): scopes as for
 * guide sources (read, write, delete, refresh).
 */
export const M3U_SOURCE_ROUTES: readonly SpecRoute[] = [
  row("GET", "/v1/admin/m3u-sources", "admin", "read"),
  row("POST", "/v1/admin/m3u-sources", "admin", "write"),
  row("GET", "/v1/admin/m3u-sources/status", "admin", "read"),
  row("GET", "/v1/admin/m3u-sources/{id}", "admin", "read"),
  row("PUT", "/v1/admin/m3u-sources/{id}", "admin", "write"),
  row("DELETE", "/v1/admin/m3u-sources/{id}", "admin", "delete"),
  row("POST", "/v1/admin/m3u-sources/{id}/refresh", "admin", "refresh"),
];
