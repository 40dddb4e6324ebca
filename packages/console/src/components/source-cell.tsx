/** A source in a table cell: its name (its id when unnamed), and its URL muted below. */
export function SourceCell(p: { id: string; name?: string | null | undefined; url: string }) {
  return (
    <>
      {p.name || p.id}
      <span class="muted block">{p.url}</span>
    </>
  );
}
