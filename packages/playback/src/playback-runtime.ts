import type { Channel, ChannelCatalog } from "@svc/core/catalog";
import type { GatewayConfig } from "@svc/core/config";
import type { Egress } from "@svc/core/egress";
import type { Build } from "@svc/core/http";
import type { LocalIngress } from "./delivery/play-request.js";
import { createPlaybackStats, type PlaybackStats } from "./delivery/playback-stats.js";
import { createClusterViewerLeases, type ViewerSeatStore } from "./hls/cluster-viewer-leases.js";
import { createPolicyChooser, type PlaylistPolicy } from "./hls/playlist-policy.js";
import type { RewritePolicy } from "./hls/playlist-rewriter.js";
import { createPlaylistSource, type PlaylistSource } from "./hls/playlist-source.js";
import { createSegmentFanIn, type SegmentFanIn } from "./hls/segment-fan-in.js";
import { channelCredentialOrigin } from "./hls/upstream-headers.js";
import { createUpstreamSigner, type UpstreamSigner } from "./hls/upstream-signer.js";
import {
  createLeaseSigner,
  createViewerLeases,
  type LeaseSigner,
  type ViewerLeases,
} from "./hls/viewer-leases.js";
import { createHlsStreamRelays, type HlsStreamRelays } from "./hls-stream-relays.js";
import {
  createClusterKeyConnections,
  createKeyConnections,
  type KeyConnections,
} from "./key-connections.js";
import { createParkingLimit, type ParkingLimit } from "./sessions/parking-limit.js";

export interface PlaybackRuntimeOptions {
  readonly config: GatewayConfig;
  readonly catalog: ChannelCatalog;
  readonly egress: Egress;
  readonly build: Build;
  /** HMAC key of `u/` URLs and viewer leases (see `resolveUrlSigningKey`). */
  readonly signingKey: Buffer;
  /** Current `public_base_url` ("" → the request's own scheme and Host). */
  readonly publicBaseUrl: () => string;
  readonly localIngress?: LocalIngress;
  /**
   * The current `playlist_policy`, read per playlist. The full build passes the stored egress
   * document's (changed through the admin API without a restart); default: the config file's.
   */
  readonly playlistPolicy?: () => PlaylistPolicy;
  /**
   * Cluster mode: the database every instance counts `max_viewers` seats in. Absent
   * (embedded SQLite, lite), seats are held in this process's memory.
   */
  readonly viewerSeats?: ViewerSeatStore;
  /** A failure of the shared viewer-seat store (cluster mode). */
  readonly onSeatError?: (err: unknown, what: string) => void;
  /**
   * The counters to feed, when they exist before the runtime (the playback stack makes
   * them first so the local ingress and the admin status share them); default: new ones.
   */
  readonly stats?: PlaybackStats;
}

/** Shared by every mount of the play routes: one signer, cache, lease table and set of counters. */
export interface PlaybackRuntime {
  readonly options: PlaybackRuntimeOptions;
  readonly signer: UpstreamSigner;
  readonly leases: ViewerLeases;
  /**
   * Signs the viewer leases of HLS viewers under a playback key with `max_connections`
   * on a channel without `max_viewers` (the lease then names the key's seat only).
   */
  readonly leaseSigner: LeaseSigner;
  /** Concurrent streams per playback key (extensions "Connection limits"). */
  readonly keyConnections: KeyConnections;
  readonly playlists: PlaylistSource;
  readonly segments: SegmentFanIn;
  /** `bytes_in`, `bytes_out`, `requests`, `errors` for `GET /v1/status`. */
  readonly stats: PlaybackStats;
  /**
   * The `stream.ts` relays of `hls` channels: one per channel for every mount and door
   * (`/v1/play`, `/p/`, HDHomeRun, Xtream).
   */
  readonly hlsStreams: HlsStreamRelays;
  readonly build: Build;
  /** `security.cors_origins` is set: streamed answers copy the CORS headers. */
  readonly withCors: boolean;
  /** Requests each client may have waiting at once (start waits, blocking reloads, parts). */
  readonly parking: ParkingLimit;
  /** How the media URIs of a playlist fetched from `url` for `channel` are written. */
  readonly rewritePolicy: (channel: Channel, url: string) => RewritePolicy;
}

/** Media held in memory by segment fan-in, all shared fetches together. */
const SEGMENT_BUDGET_BYTES = 64 * 1024 * 1024;
/** Largest single segment that is shared; bigger ones stream to each viewer on their own. */
const SEGMENT_MAX_SHARED_BYTES = 16 * 1024 * 1024;

/**
 * @example
 * const runtime = createPlaybackRuntime({ config, catalog, egress, build: "lite",
 *   signingKey: resolveUrlSigningKey(config, "lite"), publicBaseUrl: () => "" });
 * app.route("/v1/play", createPlayRoutes(runtime, { resolveGrant: jwtPlayGrant(authorizer) }));
 */
export function createPlaybackRuntime(options: PlaybackRuntimeOptions): PlaybackRuntime {
  const stats = options.stats ?? createPlaybackStats();
  const signer = createUpstreamSigner(options.signingKey);
  const rewritePolicy = createPolicyChooser(
    options.playlistPolicy ?? (() => options.config.egress.playlist_policy),
    options.egress,
  );
  const withCors = options.config.security.cors_origins.length > 0;
  return {
    options,
    signer,
    stats,
    build: options.build,
    withCors,
    hlsStreams: createHlsStreamRelays({ options, stats, build: options.build, withCors }),
    leases:
      options.viewerSeats === undefined
        ? createViewerLeases(options.signingKey)
        : createClusterViewerLeases({
            key: options.signingKey,
            store: options.viewerSeats,
            onError: options.onSeatError,
          }),
    leaseSigner: createLeaseSigner(options.signingKey),
    keyConnections:
      options.viewerSeats === undefined
        ? createKeyConnections()
        : createClusterKeyConnections({ store: options.viewerSeats, onError: options.onSeatError }),
    parking: createParkingLimit(),
    rewritePolicy,
    playlists: createPlaylistSource({
      egress: options.egress,
      maxPlaylistBytes: options.config.security.max_playlist_bytes,
      policy: rewritePolicy,
      sign: (channelId, target) => signer.sign(channelId, target),
      stats,
      credentialOrigin: (channel) => channelCredentialOrigin(channel, options.catalog),
    }),
    segments: createSegmentFanIn({
      egress: options.egress,
      stats,
      budgetBytes: SEGMENT_BUDGET_BYTES,
      maxEntryBytes: SEGMENT_MAX_SHARED_BYTES,
      credentialOrigin: (channel) => channelCredentialOrigin(channel, options.catalog),
    }),
  };
}
