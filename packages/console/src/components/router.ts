import { useEffect, useState } from "preact/hooks";

/** Screens of the console, addressed as `#/<screen>` so the gateway serves one shell. */
export const SCREENS = [
  "dashboard",
  "channels",
  "guide",
  "egress",
  "m3u",
  "m3u-sources",
  "keys",
  "tokens",
  "logs",
  "settings",
  "account",
] as const;
export type Screen = (typeof SCREENS)[number];

function current(): Screen {
  const name = location.hash.replace(/^#\/?/, "").split("/")[0] ?? "";
  return (SCREENS as readonly string[]).includes(name) ? (name as Screen) : "dashboard";
}

/** The screen named by the location hash; follows back/forward navigation. */
export function useScreen(): Screen {
  const [screen, setScreen] = useState<Screen>(current);
  useEffect(() => {
    const update = () => setScreen(current());
    addEventListener("hashchange", update);
    // Effects run after paint: a hash change between the first render and now had no
    // listener yet (a link followed, or a test navigating, as soon as the shell shows).
    update();
    return () => removeEventListener("hashchange", update);
  }, []);
  return screen;
}
