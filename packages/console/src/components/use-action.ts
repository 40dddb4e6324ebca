import { useCallback, useEffect, useState } from "preact/hooks";
import { messageOf } from "../api/api-error.js";

export interface Action {
  busy: boolean;
  error: string | null;
  done: string | null;
  /** Runs `fn`; its error message (the API's) lands in `error`, `success` in `done`. */
  run<T>(fn: () => Promise<T>, success?: string | ((value: T) => string)): Promise<T | undefined>;
  clear(): void;
}

/** Progress and outcome of one long action: every error shows the API's message. */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const run = useCallback(
    async <T>(fn: () => Promise<T>, success?: string | ((value: T) => string)) => {
      setBusy(true);
      setError(null);
      setDone(null);
      try {
        const value = await fn();
        if (success !== undefined) setDone(typeof success === "string" ? success : success(value));
        return value;
      } catch (err) {
        setError(messageOf(err));
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    [],
  );
  const clear = useCallback(() => {
    setError(null);
    setDone(null);
  }, []);
  return { busy, error, done, run, clear };
}

/**
 * `fn`, then `reload` so the screen shows what it changed; the value is `fn`'s.
 *
 * @example
 * action.run(thenReload(() => api.accessLogs.clear(), reload), (r) => `Deleted ${r.deleted}.`)
 */
export function thenReload<T>(fn: () => Promise<T>, reload: () => Promise<void>) {
  return async (): Promise<T> => {
    const value = await fn();
    await reload();
    return value;
  };
}

/**
 * Runs `load` through `action` now, and again whenever `load` changes (a
 * `useCallback` over the screen's filters), so its error shows in the notice.
 */
export function useAutoLoad(action: Action, load: () => Promise<void>): void {
  // `action.run` is stable: only a new `load` loads again.
  useEffect(() => {
    void action.run(load);
  }, [load]);
}
