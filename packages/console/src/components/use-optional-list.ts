import { useEffect, useState } from "preact/hooks";

/**
 * A list a screen shows beside its own data and can do without (presets, upstreams,
 * the choices of a filter): loaded once, empty while it loads or when it fails.
 */
export function useOptionalList<T>(load: () => Promise<T[]>): T[] {
  const [items, setItems] = useState<T[]>([]);
  // Loaded once, on mount: `load` is a fresh closure each render.
  useEffect(() => {
    load()
      .then(setItems)
      .catch(() => setItems([]));
  }, []);
  return items;
}
