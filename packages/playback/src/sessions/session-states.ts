/**
 * Runtime session states (spec "Runtime session": the values are ours to define;
 * docs/sessions.md has the diagram).
 *
 * - `starting`: a packager is loading the MPD and fetching its first segments; nothing
 *   is published yet. Play requests wait for it (up to 15 s).
 * - `running`: the publication is live and media keeps arriving.
 * - `stalled`: published, but no new part or segment for the stall timeout; the packager
 *   keeps retrying and the old window is still served.
 * - `failed`: the packager could not start or gave up; a restart is scheduled with
 *   exponential backoff (each restart is a new publication generation).
 * - `stopping`: being torn down (idle stop, DELETE, shutdown); gone from the list after.
 */
export type SessionState = "starting" | "running" | "stalled" | "failed" | "stopping";

/** The allowed transitions; anything else is a bug in the manager. */
export const TRANSITIONS: Readonly<Record<SessionState, readonly SessionState[]>> = {
  starting: ["running", "failed", "stopping"],
  running: ["stalled", "failed", "stopping"],
  stalled: ["running", "failed", "stopping"],
  failed: ["starting", "stopping"],
  stopping: [],
};

export function canTransition(from: SessionState, to: SessionState): boolean {
  return TRANSITIONS[from].includes(to);
}

/** Delay before restart number `attempt` (1-based): 1 s, 2 s, 4 s, … capped at 30 s. */
export function restartBackoffMs(attempt: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.max(0, attempt - 1));
}
