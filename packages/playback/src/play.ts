/** Entry `@svc/playback/play`: the play routes, their runtime and the credential seam. */

export type { LocalIngress, PlayRequest } from "./delivery/play-request.js";
export type { PlaybackStats } from "./delivery/playback-stats.js";
export {
  type ClusterViewerLeases,
  createClusterViewerLeases,
  SEAT_FLUSH_MS,
  type ViewerSeat,
  type ViewerSeatStore,
} from "./hls/cluster-viewer-leases.js";
export { LEASE_TTL_MS, type LeaseOutcome, type ViewerLeases } from "./hls/viewer-leases.js";
export {
  claimKeyConnection,
  createClusterKeyConnections,
  type KeyConnectionClaim,
  type KeyConnectionLimit,
  type KeyConnections,
} from "./key-connections.js";
export { jwtPlayGrant, type PlayGrant, type ResolveGrant } from "./play-grant.js";
export {
  createPlayRoutes,
  createStreamDoor,
  type PlayRouteFamily,
  playRouteFamily,
  playRoutes,
  type StreamDoor,
} from "./play-routes.js";
export {
  createPlaybackRuntime,
  type PlaybackRuntime,
  type PlaybackRuntimeOptions,
} from "./playback-runtime.js";
export { createPlaylistFastLane } from "./playlist-fast-lane.js";
export { resolveUrlSigningKey } from "./signing-key.js";
