import type { ComponentChildren } from "preact";

/**
 * A screen of the console: a `<section>` named by its `<h1>` (the landmark a
 * screen reader lists, and the heading the tests find a screen by).
 *
 * @example
 * <Screen titleId="logs-title" title="Playback access log">…</Screen>
 */
export function Screen(p: { titleId: string; title: string; children?: ComponentChildren }) {
  return (
    <section aria-labelledby={p.titleId}>
      <h1 id={p.titleId}>{p.title}</h1>
      {p.children}
    </section>
  );
}
