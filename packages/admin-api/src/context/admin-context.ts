import type { PasswordHasher, RateLimiter, SessionTokens } from "@svc/core/auth";
import type { GatewayConfig } from "@svc/core/config";
import type { Egress } from "@svc/core/egress";
import type { StreamDoor } from "@svc/playback/play";
import { publicBase } from "@svc/playback/routes";
import type { Context } from "hono";
import type { GatewayMetrics, PlaybackStats } from "../metrics/gateway-metrics.js";
import type { WorkerPeers } from "../metrics/worker-gather.js";
import type { MutableAccountDirectory } from "../services/accounts/account-directory.js";
import type { ApiTokenStore } from "../services/api-tokens/token-store.js";
import type { TokenUsageRecorder } from "../services/api-tokens/usage-recorder.js";
import type { ChannelStore } from "../services/channels/channel-store.js";
import type { EgressStore } from "../services/egress/egress-store.js";
import type { GuideService } from "../services/guide/guide-service.js";
import type { M3uSourceService } from "../services/m3u-sources/m3u-source-service.js";
import type { AccessLog } from "../services/playback-keys/access-log.js";
import type { PlaybackKeyStore } from "../services/playback-keys/key-store.js";
import type { SettingsStore } from "../services/settings/settings-store.js";
import type {
  ClusterSessionSource,
  RuntimeSessionView,
} from "../services/status/cluster-sessions.js";
import type { ChangeFeed } from "../storage/kernel/change-feed.js";
import type { AdminEnv, Principal } from "./env.js";

export type { RuntimeSessionView };

/**
 * Control of the runtime media sessions, as the playback engine offers it:
 * the status list, warmup (202 `{state}`) and stop (204, or 404 when none ran).
 */
export interface SessionControl {
  list(): readonly RuntimeSessionView[];
  /** Cluster mode answers once the channel's lease was claimed (or found held elsewhere). */
  warmup(channelId: string): WarmupAnswer | Promise<WarmupAnswer>;
  /** Cluster mode: stops the session wherever it runs (forwarded to the channel's owner). */
  stop(channelId: string, requestId?: string): Promise<boolean>;
  /**
   * Cluster mode: a stop another instance forwarded with its session stop token
   * (`X-Svc-Instance-Token`). Undefined when the token is not good; else whether a
   * session of this instance was stopped.
   */
  stopForwarded?(channelId: string, token: string): Promise<boolean | undefined>;
  /** Extensions "Connection limits": this instance's running sessions per configured upstream. */
  upstreams?(): readonly {
    readonly id: string;
    readonly connections: number;
    readonly max_connections: number | null;
  }[];
}

export type WarmupAnswer =
  | { readonly ok: true; readonly state: string }
  | { readonly ok: false; readonly code: "not_found" | "conflict"; readonly message: string };

/** Everything the admin routes use, built once at startup by the full app. */
export interface AdminContext {
  readonly config: GatewayConfig;
  readonly accounts: MutableAccountDirectory;
  readonly sessionTokens: SessionTokens;
  /** bcrypt work, bounded per process (shared with the login route). */
  readonly passwords: PasswordHasher;
  /** The login limiter, shared with `PUT /v1/me/credentials` (spec "Limits"). */
  readonly limiter: RateLimiter;
  readonly channels: ChannelStore;
  readonly tokens: ApiTokenStore;
  readonly usage: TokenUsageRecorder;
  readonly keys: PlaybackKeyStore;
  readonly accessLog: AccessLog;
  readonly settings: SettingsStore;
  readonly metrics: GatewayMetrics | undefined;
  /** The gateway's start: this process's, or with workers the primary's. */
  readonly startedAt: number;
  /**
   * Workers: the other workers' parts of `/metrics` and `/v1/status`, gathered over IPC;
   * undefined in a single process (docs/cluster.md "Workers").
   */
  readonly peers?: WorkerPeers;
  /** Playback counters; zeros until the playback module reports them. */
  readonly playbackStats: () => PlaybackStats;
  /** Runtime media sessions of the packaging engines. */
  readonly sessions: SessionControl;
  /** Cluster mode: the packaging leases of every instance, so `/v1/status` lists the cluster's sessions. */
  readonly clusterSessions?: ClusterSessionSource;
  /** Streams open under a playback key on this instance (`active_cons`); absent: 0. */
  readonly keyConnections?: (keyId: string) => number;
  /** `stream.ts` of a channel under a grant of the caller's (HDHomeRun `auto/v`). */
  readonly streamDoor?: StreamDoor;
  readonly defaultUserAgent: string;
  /** The process's one egress (the SSRF guard), shared with playback; probes use it. */
  readonly egress: Egress;
  /** The stored egress routing document (spec "Egress configuration"). */
  readonly egressConfig: EgressStore;
  /** True while a guide source holds data, so exports carry `x-tvg-url` (the guide's `active`). */
  readonly guideActive: () => boolean;
  /** Guide sources, refresh, matching, epg.xml and logos. */
  readonly guide: GuideService;
  /** M3U provider sources and their syncs (extension `m3u_sources`). */
  readonly m3uSources: M3uSourceService;
  /** The storage's change feed: writes catch up on other instances' writes first. */
  readonly feed: ChangeFeed;
  /**
   * Cluster mode: what the credential gates await on an unknown API token or playback key
   * before they check it again (read-after-write; `services/credential-catch-up.ts`).
   */
  readonly credentialMisses?: () => Promise<void>;
}

/** The origin generated URLs start with: runtime `public_base_url`, else the request's own. */
export function requestBase(ctx: AdminContext, c: Context<AdminEnv>): string {
  return publicBase(ctx.settings.current().publicBaseUrl, c.req.url, c.req.header("host"));
}

/** The caller as the credential gate established it. */
export function principalOf(c: Context<AdminEnv>): Principal {
  return c.get("principal");
}

/** Channel restriction of the caller: null for admins, tokens and unrestricted users. */
export function channelRestriction(p: Principal): ReadonlySet<string> | null {
  if (p.kind === "api_token") return null;
  if (p.account.role === "admin" || p.account.channelIds.length === 0) return null;
  return new Set(p.account.channelIds);
}
