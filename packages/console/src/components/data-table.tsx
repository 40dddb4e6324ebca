import type { ComponentChildren, JSX } from "preact";

/** One column, declared as data: its header, how a row fills its cell, and its classes. */
export interface Column<Row> {
  header: ComponentChildren;
  cell: (row: Row) => ComponentChildren;
  /** Classes for the header and every cell (`hide-narrow`, `wrap`, `mono`, `actions-cell`). */
  class?: string;
  /** Extra classes for the cells only. */
  cellClass?: string;
  /** The cell names its row (`<th scope="row">`). */
  rowHeader?: boolean;
}

interface DataTableProps<Row> {
  /** `false` entries drop a column (`cluster && {…}`). */
  columns: readonly (Column<Row> | false)[];
  /** `null` while the first load runs. */
  rows: readonly Row[] | null;
  rowKey: (row: Row, index: number) => string | number;
  /** Row attributes: `data-*` the tests find rows by, classes, drag handlers. */
  rowProps?: (row: Row) => JSX.HTMLAttributes<HTMLTableRowElement> & Record<string, unknown>;
  caption?: string;
  /** The caption is for screen readers only. */
  captionHidden?: boolean;
  /** Extra classes for the `<table>` (`channel-table`). */
  class?: string;
  /** Shown instead of the table when there is no row. */
  empty: ComponentChildren;
  /** Shown instead of the table when the load failed. */
  error?: string | null;
  loading?: string;
}

/**
 * The console's one table: columns declared as data, and the loading, error and
 * empty states every list shares.
 *
 * @example
 * <DataTable rows={keys} rowKey={(k) => k.id} empty="No key yet."
 *   columns={[{ header: "Name", cell: (k) => k.name }]} />
 */
export function DataTable<Row>(p: DataTableProps<Row>) {
  if (p.error) {
    return (
      <p class="notice notice-error" role="alert">
        {p.error}
      </p>
    );
  }
  if (p.rows === null) {
    return (
      <p class="notice notice-busy" role="status">
        <span class="spinner" aria-hidden="true" /> {p.loading ?? "Loading…"}
      </p>
    );
  }
  if (p.rows.length === 0) return <p class="table-empty">{p.empty}</p>;
  const columns = p.columns.filter((c): c is Column<Row> => c !== false);
  return (
    <div class="table-wrap">
      <table class={p.class ? `table ${p.class}` : "table"}>
        {p.caption ? (
          <caption class={p.captionHidden ? "sr-only" : undefined}>{p.caption}</caption>
        ) : null}
        <thead>
          <tr>
            {columns.map((c, i) => (
              <th key={i} scope="col" class={c.class}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {p.rows.map((row, index) => (
            <tr key={p.rowKey(row, index)} {...p.rowProps?.(row)}>
              {columns.map((c, i) => {
                const cls = [c.class, c.cellClass].filter(Boolean).join(" ") || undefined;
                return c.rowHeader ? (
                  <th key={i} scope="row" class={cls}>
                    {c.cell(row)}
                  </th>
                ) : (
                  <td key={i} class={cls}>
                    {c.cell(row)}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
