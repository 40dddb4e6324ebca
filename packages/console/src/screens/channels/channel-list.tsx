import { useState } from "preact/hooks";
import type { Channel } from "../../api/wire.js";
import { type Column, DataTable } from "../../components/data-table.js";

/**
 * The channel rows. Reorder by dragging a row onto another, or with the
 * keyboard through the move buttons; either way `onMove(id, toIndex)` runs with
 * an index into the full list.
 */
export function ChannelList(p: {
  rows: Channel[];
  all: Channel[];
  selected: string | null;
  busy: boolean;
  onOpen: (id: string) => void;
  onToggle: (c: Channel) => void;
  onDelete: (c: Channel) => void;
  onMove: (id: string, toIndex: number) => void;
}) {
  const [dragging, setDragging] = useState<string | null>(null);
  const [over, setOver] = useState<string | null>(null);
  const position = new Map(p.all.map((c, i) => [c.id, i]));
  const indexOf = (id: string) => position.get(id) ?? -1;
  const columns: Column<Channel>[] = [
    {
      header: <span class="sr-only">Order</span>,
      cellClass: "order-cell",
      cell: (c) => {
        const at = indexOf(c.id);
        return (
          <>
            <span class="drag-handle" aria-hidden="true">
              ⠿
            </span>
            <button
              type="button"
              class="btn btn-icon"
              aria-label={`Move ${c.title} up`}
              disabled={p.busy || at === 0}
              onClick={() => p.onMove(c.id, at - 1)}
            >
              ↑
            </button>
            <button
              type="button"
              class="btn btn-icon"
              aria-label={`Move ${c.title} down`}
              disabled={p.busy || at === p.all.length - 1}
              onClick={() => p.onMove(c.id, at + 1)}
            >
              ↓
            </button>
          </>
        );
      },
    },
    {
      header: "Title",
      cell: (c) => (
        <button type="button" class="link-button channel-title" onClick={() => p.onOpen(c.id)}>
          {c.title}
        </button>
      ),
    },
    { header: "ID", cell: (c) => c.id, class: "hide-narrow", cellClass: "mono" },
    { header: "Group", cell: (c) => c.group || "—", class: "hide-narrow" },
    { header: "Ingress", cell: (c) => c.ingress, class: "hide-narrow" },
    {
      header: "State",
      cell: (c) => (
        <span class={c.disabled ? "badge badge-bad" : "badge badge-ok"}>
          {c.disabled ? "disabled" : "enabled"}
        </span>
      ),
    },
    {
      header: "Actions",
      cellClass: "actions-cell",
      cell: (c) => (
        <>
          <button
            type="button"
            class="btn btn-small"
            disabled={p.busy}
            aria-label={`${c.disabled ? "Enable" : "Disable"} ${c.title}`}
            onClick={() => p.onToggle(c)}
          >
            {c.disabled ? "Enable" : "Disable"}
          </button>
          <button
            type="button"
            class="btn btn-small btn-danger"
            disabled={p.busy}
            aria-label={`Delete ${c.title}`}
            onClick={() => p.onDelete(c)}
          >
            Delete
          </button>
        </>
      ),
    },
  ];
  const rowProps = (c: Channel) => ({
    "data-id": c.id,
    draggable: true,
    class: [
      p.selected === c.id ? "row-selected" : "",
      over === c.id && dragging !== c.id ? "row-drop" : "",
    ].join(" "),
    onDragStart: (e: DragEvent) => {
      setDragging(c.id);
      e.dataTransfer?.setData("text/plain", c.id);
    },
    onDragOver: (e: DragEvent) => {
      e.preventDefault();
      setOver(c.id);
    },
    onDragEnd: () => {
      setDragging(null);
      setOver(null);
    },
    onDrop: (e: DragEvent) => {
      e.preventDefault();
      const id = e.dataTransfer?.getData("text/plain") || dragging;
      setDragging(null);
      setOver(null);
      if (id && id !== c.id) p.onMove(id, indexOf(c.id));
    },
  });
  return (
    <DataTable
      class="channel-table"
      caption="Channels"
      captionHidden
      columns={columns}
      rows={p.rows}
      rowKey={(c) => c.id}
      rowProps={rowProps}
      empty="No channel matches."
    />
  );
}
