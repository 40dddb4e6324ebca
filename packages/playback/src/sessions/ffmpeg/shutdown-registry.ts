/** What the registry needs from a live session. */
export interface StoppableSession {
  stop(): Promise<void>;
  /** Synchronous last resort: SIGKILL the ffmpeg group and remove its pidfile. */
  killNow(): void;
}

const live = new Set<StoppableSession>();
let exitHookInstalled = false;

/**
 * Last resort when the gateway exits without stopping its sessions (an uncaught error, a
 * `process.exit`): SIGKILL every ffmpeg group synchronously. A SIGKILLed gateway runs no
 * code at all; that case is left to the pidfiles and `reapOrphans` on the next start.
 */
function killAllNow(): void {
  for (const session of live) session.killNow();
}

export function registerSession(session: StoppableSession): void {
  if (!exitHookInstalled) {
    process.once("exit", killAllNow);
    exitHookInstalled = true;
  }
  live.add(session);
}

export function unregisterSession(session: StoppableSession): void {
  live.delete(session);
}

/**
 * Stop every compatibility-engine session of this process (graceful gateway shutdown):
 * each ffmpeg group gets SIGTERM, then SIGKILL after its grace period, and is reaped.
 */
export async function stopAllFfmpegSessions(): Promise<void> {
  await Promise.all([...live].map((s) => s.stop()));
}
