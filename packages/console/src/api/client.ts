import { request, send } from "./request.js";
import type {
  AccessRecord,
  ApiToken,
  AuditRecord,
  BulkAnswer,
  Channel,
  ChannelDetail,
  ChannelWrite,
  ChannelWriteAnswer,
  DuplicatesMode,
  EgressConfig,
  EgressProxyWrite,
  EgressRule,
  EgressTest,
  EgressTestAnswer,
  GuideMatch,
  GuideSource,
  GuideSourceEntry,
  GuideSourceWrite,
  GuideStatus,
  ImportAnswer,
  IssuedApiToken,
  IssuedPlaybackKey,
  IssuedXtreamPassword,
  LoginAnswer,
  M3uSource,
  M3uSourceStatus,
  M3uSourceWrite,
  Me,
  PlaybackKey,
  ProbeAnswer,
  ReorderAnswer,
  Scope,
  Settings,
  SettingsWrite,
  Status,
  Upstream,
} from "./wire.js";

export { session } from "./request.js";

/**
 * The typed admin API. Paths, parameters and bodies are checked against the
 * generated OpenAPI types by {@link request}; every failure is an `ApiError`
 * carrying the API's code and message.
 */
export const api = {
  login: (username: string, password: string): Promise<LoginAnswer> =>
    request("post", "/v1/auth/login", { body: { username, password } }),
  me: (): Promise<Me> => request("get", "/v1/me"),
  changeCredentials: (body: {
    current_password: string;
    username?: string;
    new_password?: string;
  }): Promise<LoginAnswer> => request("put", "/v1/me/credentials", { body }),
  status: (): Promise<Status> => request("get", "/v1/status"),
  upstreams: (): Promise<{ upstreams: Upstream[] }> => request("get", "/v1/admin/upstreams"),

  channels: {
    list: (): Promise<{ channels: Channel[] }> => request("get", "/v1/admin/channels"),
    get: (id: string): Promise<ChannelDetail> =>
      request("get", "/v1/admin/channels/{id}", { path: { id } }),
    create: (body: ChannelWrite): Promise<ChannelWriteAnswer> =>
      request("post", "/v1/admin/channels", { body }),
    replace: (id: string, body: ChannelWrite, revision: number): Promise<ChannelWriteAnswer> =>
      request("put", "/v1/admin/channels/{id}", { path: { id }, body, ifMatch: revision }),
    remove: (id: string, revision: number): Promise<{ ok: boolean }> =>
      request("delete", "/v1/admin/channels/{id}", { path: { id }, ifMatch: revision }),
    setAll: (enabled: boolean): Promise<BulkAnswer> =>
      enabled
        ? request("post", "/v1/admin/channels/enable-all")
        : request("post", "/v1/admin/channels/disable-all"),
    reorder: (ids: string[], revisions: Record<string, number>): Promise<ReorderAnswer> =>
      request("put", "/v1/admin/channels/reorder", { body: { ids, revisions } }),
    probe: (id: string): Promise<ProbeAnswer> =>
      request("post", "/v1/admin/channels/{id}/probe", { path: { id } }),
    warmup: (id: string): Promise<{ state: string }> =>
      request("post", "/v1/admin/channels/{id}/warmup", { path: { id } }),
    preview: (id: string): Promise<{ play_url: string; expires_at: string }> =>
      request("post", "/v1/admin/channels/{id}/preview", { path: { id } }),
    stopSession: (id: string): Promise<void> =>
      request("delete", "/v1/admin/sessions/{id}", { path: { id } }),
  },

  apiTokens: {
    list: (): Promise<{ tokens: ApiToken[]; available_scopes: Scope[] }> =>
      request("get", "/v1/admin/api-tokens"),
    create: (body: {
      name: string;
      note: string;
      scopes: Scope[];
      expires_in_sec: number;
    }): Promise<IssuedApiToken> => request("post", "/v1/admin/api-tokens", { body }),
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
    ): Promise<{ credential: ApiToken }> =>
      request("put", "/v1/admin/api-tokens/{id}", { path: { id }, body, ifMatch: revision }),
    rotate: (id: string, revision: number): Promise<IssuedApiToken> =>
      request("post", "/v1/admin/api-tokens/{id}/rotate", { path: { id }, ifMatch: revision }),
    revoke: (id: string, revision: number): Promise<{ ok: true }> =>
      request("post", "/v1/admin/api-tokens/{id}/revoke", { path: { id }, ifMatch: revision }),
    remove: (id: string, revision: number): Promise<void> =>
      request("delete", "/v1/admin/api-tokens/{id}", { path: { id }, ifMatch: revision }),
    logs: (): Promise<{ logs: AuditRecord[] }> => request("get", "/v1/admin/api-token-logs"),
  },

  playbackKeys: {
    list: (): Promise<{ access_tokens: PlaybackKey[] }> =>
      request("get", "/v1/admin/access-tokens"),
    create: (body: {
      name: string;
      note: string;
      channel_ids: string[];
      expires_in_sec: number;
      max_connections: number | null;
      xtream_username?: string;
    }): Promise<IssuedPlaybackKey> => request("post", "/v1/admin/access-tokens", { body }),
    /** Extensions "Xtream Codes output": a new password, shown once; the old one stops. */
    xtreamPassword: (id: string, revision: number): Promise<IssuedXtreamPassword> =>
      request("post", "/v1/admin/access-tokens/{id}/xtream-password", {
        path: { id },
        ifMatch: revision,
      }),
    revoke: (id: string, revision: number): Promise<{ ok: true }> =>
      request("post", "/v1/admin/access-tokens/{id}/revoke", { path: { id }, ifMatch: revision }),
    remove: (id: string, revision: number): Promise<{ ok: true }> =>
      request("delete", "/v1/admin/access-tokens/{id}", { path: { id }, ifMatch: revision }),
  },

  accessLogs: {
    list: (query: {
      limit?: number;
      token_id?: string;
    }): Promise<{ access_logs: AccessRecord[] }> =>
      request("get", "/v1/admin/access-logs", { query }),
    clear: (): Promise<{ deleted: number }> => request("delete", "/v1/admin/access-logs"),
  },

  settings: {
    get: (): Promise<Settings> => request("get", "/v1/admin/settings"),
    update: (revision: number, body: SettingsWrite): Promise<Settings> =>
      request("put", "/v1/admin/settings", { body, ifMatch: revision }),
  },

  guide: {
    presets: (): Promise<{ presets: GuideSourceWrite[] }> =>
      request("get", "/v1/admin/epg/presets"),
    sources: (): Promise<{ sources: GuideSourceEntry[]; statuses: GuideStatus[] }> =>
      request("get", "/v1/admin/epg/sources"),
    create: (body: GuideSourceWrite): Promise<{ ok: boolean; source: GuideSource }> =>
      request("post", "/v1/admin/epg/sources", { body }),
    update: (
      id: string,
      revision: number,
      body: GuideSourceWrite,
    ): Promise<{ ok: boolean; source: GuideSource }> =>
      request("put", "/v1/admin/epg/sources/{id}", { path: { id }, body, ifMatch: revision }),
    remove: (id: string, revision?: number): Promise<unknown> =>
      request("delete", "/v1/admin/epg/sources/{id}", { path: { id }, ifMatch: revision }),
    matches: (): Promise<{ matches: GuideMatch[] }> => request("get", "/v1/admin/epg/matches"),
    refresh: (): Promise<{ ok: boolean; statuses: GuideStatus[] }> =>
      request("post", "/v1/admin/epg/refresh"),
  },

  m3uSources: {
    list: (): Promise<{ sources: M3uSource[] }> => request("get", "/v1/admin/m3u-sources"),
    statuses: (): Promise<{ statuses: M3uSourceStatus[] }> =>
      request("get", "/v1/admin/m3u-sources/status"),
    create: (body: M3uSourceWrite & { id: string; url: string }): Promise<{ source: M3uSource }> =>
      request("post", "/v1/admin/m3u-sources", { body }),
    update: (id: string, revision: number, body: M3uSourceWrite): Promise<{ source: M3uSource }> =>
      request("put", "/v1/admin/m3u-sources/{id}", { path: { id }, body, ifMatch: revision }),
    remove: (id: string, revision: number): Promise<{ ok: boolean }> =>
      request("delete", "/v1/admin/m3u-sources/{id}", { path: { id }, ifMatch: revision }),
    refresh: (id: string): Promise<{ ok: boolean; status: M3uSourceStatus }> =>
      request("post", "/v1/admin/m3u-sources/{id}/refresh", { path: { id } }),
  },

  egress: {
    get: (): Promise<EgressConfig> => request("get", "/v1/admin/egress"),
    replace: (revision: number, body: Partial<EgressConfig>): Promise<EgressConfig> =>
      request("put", "/v1/admin/egress", { body, ifMatch: revision }),
    createProxy: (revision: number, body: EgressProxyWrite): Promise<unknown> =>
      request("post", "/v1/admin/egress/proxies", { body, ifMatch: revision }),
    updateProxy: (revision: number, id: string, body: EgressProxyWrite): Promise<unknown> =>
      request("put", "/v1/admin/egress/proxies/{id}", { path: { id }, body, ifMatch: revision }),
    removeProxy: (revision: number, id: string): Promise<unknown> =>
      request("delete", "/v1/admin/egress/proxies/{id}", { path: { id }, ifMatch: revision }),
    createRule: (revision: number, body: EgressRule): Promise<unknown> =>
      request("post", "/v1/admin/egress/rules", { body, ifMatch: revision }),
    updateRule: (revision: number, id: string, body: EgressRule): Promise<unknown> =>
      request("put", "/v1/admin/egress/rules/{id}", { path: { id }, body, ifMatch: revision }),
    removeRule: (revision: number, id: string): Promise<unknown> =>
      request("delete", "/v1/admin/egress/rules/{id}", { path: { id }, ifMatch: revision }),
    test: (body: EgressTest): Promise<EgressTestAnswer> =>
      request("post", "/v1/admin/egress/test", { body }),
  },

  m3u: {
    importPlaylist: (
      content: string,
      apply: boolean,
      revisions?: Record<string, number>,
      duplicates: DuplicatesMode = "channels",
    ): Promise<ImportAnswer> =>
      request("post", "/v1/admin/import/m3u", {
        body: apply
          ? { content, apply, revisions: revisions ?? {}, duplicates }
          : { content, apply, duplicates },
      }),
    /** The export answers a file, not JSON. */
    async exportPlaylist(): Promise<{ text: string; filename: string }> {
      const res = await send("post", "/v1/admin/exports/m3u");
      const disposition = res.headers.get("Content-Disposition") ?? "";
      const filename = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? "svc-playlist.m3u";
      return { text: await res.text(), filename };
    },
  },
};
