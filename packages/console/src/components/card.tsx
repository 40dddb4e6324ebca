import type { ComponentChildren } from "preact";

/**
 * A titled card: a `<section>` named by its `<h2>`, or a `<form>` when `onSubmit`
 * is given (the browser's submit is prevented; `onSubmit` does the work).
 *
 * @example
 * <Card titleId="export-title" title="Export">…</Card>
 */
export function Card(p: {
  titleId: string;
  title: ComponentChildren;
  onSubmit?: () => void;
  children?: ComponentChildren;
}) {
  const title = <h2 id={p.titleId}>{p.title}</h2>;
  const submit = p.onSubmit;
  return submit ? (
    <form
      class="card"
      aria-labelledby={p.titleId}
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      {title}
      {p.children}
    </form>
  ) : (
    <section class="card" aria-labelledby={p.titleId}>
      {title}
      {p.children}
    </section>
  );
}
