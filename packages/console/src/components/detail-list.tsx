import type { ComponentChildren } from "preact";

/**
 * One term and its value in a `<dl class="kv">`; nothing when the value is absent
 * (`null`, `undefined`, `false` or an empty string), so optional facts need no guard.
 */
export function Detail(p: { term: string; wrap?: boolean; children: ComponentChildren }) {
  if (p.children === null || p.children === undefined || p.children === false || p.children === "")
    return null;
  return (
    <>
      <dt>{p.term}</dt>
      <dd class={p.wrap ? "wrap" : undefined}>{p.children}</dd>
    </>
  );
}
