import { useCallback, useState } from "preact/hooks";
import { type Action, useAutoLoad } from "./use-action.js";

/**
 * A single document a screen edits (settings, the egress configuration): loaded
 * through `action` on mount, kept with its revision, and copied into the form's
 * fields by `onLoad` on every load, so a reload after a 409 shows the stored values.
 *
 * @example
 * const { doc, reload } = useDocument(action, () => api.egress.get(), (r) => setDef(r.default));
 */
export function useDocument<D>(action: Action, get: () => Promise<D>, onLoad: (doc: D) => void) {
  const [doc, setDoc] = useState<D | null>(null);
  // `get` and `onLoad` only call the API and state setters: the first ones serve for good.
  const reload = useCallback(async () => {
    const loaded = await get();
    setDoc(loaded);
    onLoad(loaded);
  }, []);
  useAutoLoad(action, reload);
  return { doc, setDoc, reload };
}
