import { ApiError } from "./api-error.js";
import type {
  AccessRecord,
  ApiToken,
  AuditRecord,
  BulkAnswer,
  Channel,
  ChannelDetail,
  ChannelWrite,
  EgressConfig,
  EgressProxy,
  EgressRule,
  EgressTestAnswer,
  GuideMatch,
  GuideSourceEntry,
  GuideSourceWrite,
  GuideStatus,
  ImportAnswer,
  IssuedApiToken,
  IssuedPlaybackKey,
  LoginAnswer,
  Me,
  PlaybackKey,
  ProbeAnswer,
  ReorderAnswer,
  Scope,
  Settings,
  Status,
  Upstream,
} from "./types.js";

type Method = "GET" | "POST" | "PUT" | "DELETE";

interface CallOptions {
  body?: unknown;
  /** The revision the caller holds, sent as `If-Match` (spec "Concurrency headers"). */
  ifMatch?: number;
  query?: Record<string, string | number | undefined>;
}

const TOKEN_KEY = "svc-console-token";

let token: string | null = sessionStorage.getItem(TOKEN_KEY);
let onUnauthorized: () => void = () => {};

/** The session token the console holds (kept in sessionStorage: gone with the tab). */
export const session = {
  get: () => token,
  set(value: string | null) {
    token = value;
    if (value === null) sessionStorage.removeItem(TOKEN_KEY);
    else sessionStorage.setItem(TOKEN_KEY, value);
  },
  /** Called when an authenticated call answers 401 (expired or replaced session). */
  onUnauthorized(fn: () => void) {
    onUnauthorized = fn;
  },
};

async function send(method: Method, path: string, opts: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  if (opts.body !== undefined) headers["Content-Type"] = "application/json";
  if (opts.ifMatch !== undefined) headers["If-Match"] = `"${opts.ifMatch}"`;
  let url = path;
  if (opts.query) {
    const q = Object.entries(opts.query)
      .filter((e): e is [string, string | number] => e[1] !== undefined && e[1] !== "")
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
      .join("&");
    if (q !== "") url += `?${q}`;
  }
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      cache: "no-store",
    });
  } catch (err) {
    throw new ApiError(0, "network", `the gateway did not answer (${(err as Error).message})`);
  }
  if (res.ok) return res;
  let code = "http_error";
  let message = `${res.status} ${res.statusText}`;
  try {
    const body = (await res.json()) as { error?: { code?: string; message?: string } };
    if (body.error?.code) code = body.error.code;
    if (body.error?.message) message = body.error.message;
  } catch {
    // not the API's error shape: keep the status line
  }
  if (res.status === 401 && token !== null && path !== "/v1/auth/login") onUnauthorized();
  throw new ApiError(res.status, code, message);
}

async function call<T>(method: Method, path: string, opts?: CallOptions): Promise<T> {
  const res = await send(method, path, opts);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

const seg = encodeURIComponent;

/**
 * The typed admin API: the only module of the console that calls `fetch`.
 * Every failure is an {@link ApiError} carrying the API's code and message.
 */
export const api = {
  login: (username: string, password: string) =>
    call<LoginAnswer>("POST", "/v1/auth/login", { body: { username, password } }),
  me: () => call<Me>("GET", "/v1/me"),
  changeCredentials: (body: {
    current_password: string;
    username?: string;
    new_password?: string;
  }) => call<LoginAnswer>("PUT", "/v1/me/credentials", { body }),
  status: () => call<Status>("GET", "/v1/status"),
  upstreams: () => call<{ upstreams: Upstream[] }>("GET", "/v1/admin/upstreams"),

  channels: {
    list: () => call<{ channels: Channel[] }>("GET", "/v1/admin/channels"),
    get: (id: string) => call<ChannelDetail>("GET", `/v1/admin/channels/${seg(id)}`),
    create: (body: ChannelWrite) =>
      call<{ ok: boolean; id: string }>("POST", "/v1/admin/channels", { body }),
    replace: (id: string, body: ChannelWrite, revision: number) =>
      call<{ ok: boolean; id: string }>("PUT", `/v1/admin/channels/${seg(id)}`, {
        body,
        ifMatch: revision,
      }),
    remove: (id: string, revision: number) =>
      call<{ ok: boolean }>("DELETE", `/v1/admin/channels/${seg(id)}`, { ifMatch: revision }),
    setAll: (enabled: boolean) =>
      call<BulkAnswer>("POST", `/v1/admin/channels/${enabled ? "enable-all" : "disable-all"}`),
    reorder: (ids: string[], revisions: Record<string, number>) =>
      call<ReorderAnswer>("PUT", "/v1/admin/channels/reorder", { body: { ids, revisions } }),
    probe: (id: string) => call<ProbeAnswer>("POST", `/v1/admin/channels/${seg(id)}/probe`),
    warmup: (id: string) => call<{ state: string }>("POST", `/v1/admin/channels/${seg(id)}/warmup`),
    preview: (id: string) =>
      call<{ play_url: string; expires_at: string }>(
        "POST",
        `/v1/admin/channels/${seg(id)}/preview`,
      ),
    stopSession: (id: string) => call<void>("DELETE", `/v1/admin/sessions/${seg(id)}`),
  },

  apiTokens: {
    list: () =>
      call<{ tokens: ApiToken[]; available_scopes: Scope[] }>("GET", "/v1/admin/api-tokens"),
    create: (body: { name: string; note: string; scopes: Scope[]; expires_in_sec: number }) =>
      call<IssuedApiToken>("POST", "/v1/admin/api-tokens", { body }),
    update: (
      id: string,
      revision: number,
      body: Partial<{
        name: string;
        note: string;
        scopes: Scope[];
        enabled: boolean;
        expires_at: string | null;
      }>,
    ) =>
      call<{ credential: ApiToken }>("PUT", `/v1/admin/api-tokens/${seg(id)}`, {
        body,
        ifMatch: revision,
      }),
    rotate: (id: string, revision: number) =>
      call<IssuedApiToken>("POST", `/v1/admin/api-tokens/${seg(id)}/rotate`, { ifMatch: revision }),
    revoke: (id: string, revision: number) =>
      call<{ ok: true }>("POST", `/v1/admin/api-tokens/${seg(id)}/revoke`, { ifMatch: revision }),
    remove: (id: string, revision: number) =>
      call<void>("DELETE", `/v1/admin/api-tokens/${seg(id)}`, { ifMatch: revision }),
    logs: () => call<{ logs: AuditRecord[] }>("GET", "/v1/admin/api-token-logs"),
  },

  playbackKeys: {
    list: () => call<{ access_tokens: PlaybackKey[] }>("GET", "/v1/admin/access-tokens"),
    create: (body: { name: string; note: string; channel_ids: string[]; expires_in_sec: number }) =>
      call<IssuedPlaybackKey>("POST", "/v1/admin/access-tokens", { body }),
    revoke: (id: string, revision: number) =>
      call<{ ok: true }>("POST", `/v1/admin/access-tokens/${seg(id)}/revoke`, {
        ifMatch: revision,
      }),
    remove: (id: string, revision: number) =>
      call<{ ok: true }>("DELETE", `/v1/admin/access-tokens/${seg(id)}`, { ifMatch: revision }),
  },

  accessLogs: {
    list: (query: { limit?: number; token_id?: string }) =>
      call<{ access_logs: AccessRecord[] }>("GET", "/v1/admin/access-logs", { query }),
    clear: () => call<{ deleted: number }>("DELETE", "/v1/admin/access-logs"),
  },

  settings: {
    get: () => call<Settings>("GET", "/v1/admin/settings"),
    update: (
      revision: number,
      body: { public_base_url: string; access_log_retention_days: string; tls_enabled: boolean },
    ) => call<Settings>("PUT", "/v1/admin/settings", { body, ifMatch: revision }),
  },

  guide: {
    presets: () => call<{ presets: GuideSourceWrite[] }>("GET", "/v1/admin/epg/presets"),
    sources: () =>
      call<{ sources: GuideSourceEntry[]; statuses: GuideStatus[] }>(
        "GET",
        "/v1/admin/epg/sources",
      ),
    create: (body: GuideSourceWrite) =>
      call<{ ok: boolean; source: GuideSourceEntry }>("POST", "/v1/admin/epg/sources", { body }),
    update: (id: string, revision: number, body: GuideSourceWrite) =>
      call<{ ok: boolean; source: GuideSourceEntry }>("PUT", `/v1/admin/epg/sources/${seg(id)}`, {
        body,
        ifMatch: revision,
      }),
    remove: (id: string, revision?: number) =>
      call<unknown>("DELETE", `/v1/admin/epg/sources/${seg(id)}`, {
        ...(revision === undefined ? {} : { ifMatch: revision }),
      }),
    matches: () => call<{ matches: GuideMatch[] }>("GET", "/v1/admin/epg/matches"),
    refresh: () => call<{ ok: boolean; statuses: GuideStatus[] }>("POST", "/v1/admin/epg/refresh"),
  },

  egress: {
    get: () => call<EgressConfig>("GET", "/v1/admin/egress"),
    replace: (revision: number, body: Partial<EgressConfig>) =>
      call<EgressConfig>("PUT", "/v1/admin/egress", { body, ifMatch: revision }),
    createProxy: (revision: number, body: EgressProxy) =>
      call<unknown>("POST", "/v1/admin/egress/proxies", { body, ifMatch: revision }),
    updateProxy: (revision: number, id: string, body: EgressProxy) =>
      call<unknown>("PUT", `/v1/admin/egress/proxies/${seg(id)}`, { body, ifMatch: revision }),
    removeProxy: (revision: number, id: string) =>
      call<unknown>("DELETE", `/v1/admin/egress/proxies/${seg(id)}`, { ifMatch: revision }),
    createRule: (revision: number, body: EgressRule) =>
      call<unknown>("POST", "/v1/admin/egress/rules", { body, ifMatch: revision }),
    updateRule: (revision: number, id: string, body: EgressRule) =>
      call<unknown>("PUT", `/v1/admin/egress/rules/${seg(id)}`, { body, ifMatch: revision }),
    removeRule: (revision: number, id: string) =>
      call<unknown>("DELETE", `/v1/admin/egress/rules/${seg(id)}`, { ifMatch: revision }),
    test: (body: {
      target?: string;
      url?: string;
      channel_id?: string;
      proxy_id?: string;
      proxy_url?: string;
    }) => call<EgressTestAnswer>("POST", "/v1/admin/egress/test", { body }),
  },

  m3u: {
    importPlaylist: (content: string, apply: boolean, revisions?: Record<string, number>) =>
      call<ImportAnswer>("POST", "/v1/admin/import/m3u", {
        body: apply ? { content, apply, revisions: revisions ?? {} } : { content, apply },
      }),
    /** The export answers a file, not JSON. */
    async exportPlaylist(): Promise<{ text: string; filename: string }> {
      const res = await send("POST", "/v1/admin/exports/m3u");
      const disposition = res.headers.get("Content-Disposition") ?? "";
      const filename = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? "svc-playlist.m3u";
      return { text: await res.text(), filename };
    },
  },
};
