import { useEffect, useRef } from "preact/hooks";

/**
 * Calls `tick` now and every `intervalMs` while the tab is visible; a hidden tab
 * (Page Visibility API) stops the timer, and showing it again ticks at once.
 */
export function usePolling(tick: () => Promise<void> | void, intervalMs: number): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    const hidden = () => document.visibilityState === "hidden";
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const loop = async () => {
      timer = undefined;
      if (stopped || hidden()) return;
      try {
        await latest.current();
      } finally {
        if (!stopped && !hidden() && timer === undefined) timer = setTimeout(loop, intervalMs);
      }
    };
    const onVisibility = () => {
      if (hidden()) {
        if (timer !== undefined) clearTimeout(timer);
        timer = undefined;
      } else if (timer === undefined) {
        void loop();
      }
    };
    document.addEventListener("visibilitychange", onVisibility);
    void loop();
    return () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      document.removeEventListener("visibilitychange", onVisibility);
    };
  }, [intervalMs]);
}
