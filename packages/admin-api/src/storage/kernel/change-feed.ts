/**
 * The resources the full build mirrors in memory (reads never wait on the
 * database). In cluster mode another instance can change any of them; the
 * change feed reloads the mirror (operator contract "Cluster mode": a write on
 * one instance is seen by the others within 1 second, pushed by `NOTIFY`, and
 * an admin read checks the versions first: read-after-write).
 */
export type MirroredResource =
  | "channels"
  | "accounts"
  | "api_tokens"
  | "playback_keys"
  | "settings"
  | "egress"
  | "guide";

export interface ChangeFeed {
  /**
   * Registers the reload of one mirror: called (never concurrently with itself)
   * after a writer changed `resource`. The feed cannot tell this process's own
   * writes from another instance's, so a reload must be idempotent: it re-reads
   * the stored state and replaces the mirror with it.
   */
  watch(resource: MirroredResource, reload: () => Promise<void>): void;
  /**
   * Reads the versions now and finishes every reload that is due before it
   * resolves (a reload already running that may have read older rows is run
   * once more). Every authenticated admin request calls it first, so a read
   * reflects every write acknowledged before it was sent, on any instance, and
   * a write's `If-Match` is checked against what the database holds. When the
   * database cannot be read, it resolves anyway: the mirror answers.
   */
  catchUp(): Promise<void>;
  /** Stops watching; idempotent. */
  close(): Promise<void>;
}

/** The feed of a single-writer database (embedded SQLite): nobody else writes, nothing to reload. */
export const NO_CHANGE_FEED: ChangeFeed = {
  watch: () => {},
  catchUp: async () => {},
  close: async () => {},
};
