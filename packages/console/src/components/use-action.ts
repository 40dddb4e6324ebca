import { useCallback, useState } from "preact/hooks";
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
