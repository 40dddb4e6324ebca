import { useState } from "preact/hooks";
import type { Channel } from "../../api/wire.js";

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
  const indexOf = (id: string) => p.all.findIndex((c) => c.id === id);
  return (
    <div class="table-wrap">
      <table class="table channel-table">
        <caption class="sr-only">Channels</caption>
        <thead>
          <tr>
            <th scope="col">
              <span class="sr-only">Order</span>
            </th>
            <th scope="col">Title</th>
            <th scope="col" class="hide-narrow">
              ID
            </th>
            <th scope="col" class="hide-narrow">
              Group
            </th>
            <th scope="col" class="hide-narrow">
              Ingress
            </th>
            <th scope="col">State</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {p.rows.map((c) => {
            const at = indexOf(c.id);
            return (
              <tr
                key={c.id}
                data-id={c.id}
                draggable
                class={[
                  p.selected === c.id ? "row-selected" : "",
                  over === c.id && dragging !== c.id ? "row-drop" : "",
                ].join(" ")}
                onDragStart={(e) => {
                  setDragging(c.id);
                  e.dataTransfer?.setData("text/plain", c.id);
                }}
                onDragOver={(e) => {
                  e.preventDefault();
                  setOver(c.id);
                }}
                onDragEnd={() => {
                  setDragging(null);
                  setOver(null);
                }}
                onDrop={(e) => {
                  e.preventDefault();
                  const id = e.dataTransfer?.getData("text/plain") || dragging;
                  setDragging(null);
                  setOver(null);
                  if (id && id !== c.id) p.onMove(id, at);
                }}
              >
                <td class="order-cell">
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
                </td>
                <td>
                  <button
                    type="button"
                    class="link-button channel-title"
                    onClick={() => p.onOpen(c.id)}
                  >
                    {c.title}
                  </button>
                </td>
                <td class="hide-narrow mono">{c.id}</td>
                <td class="hide-narrow">{c.group || "—"}</td>
                <td class="hide-narrow">{c.ingress}</td>
                <td>
                  <span class={c.disabled ? "badge badge-bad" : "badge badge-ok"}>
                    {c.disabled ? "disabled" : "enabled"}
                  </span>
                </td>
                <td class="actions-cell">
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
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
