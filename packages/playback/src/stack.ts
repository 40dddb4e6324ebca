/**
 * Entry `@svc/playback/stack`: the playback half of both gateways, built by one factory
 * (docs/sessions.md "Composition").
 */

export { newInstanceId } from "./cluster/cluster-membership.js";
export { createPlaybackStats, type PlaybackStats } from "./delivery/playback-stats.js";
export {
  createPlaybackStack,
  type PlaybackSessions,
  type PlaybackStack,
  type PlaybackStackDeps,
} from "./playback-stack.js";
