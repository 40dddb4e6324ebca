import { useCallback, useEffect, useState } from "preact/hooks";
import { api } from "../../api/client.js";
import type { GuideSourceEntry, GuideSourceWrite, GuideStatus } from "../../api/wire.js";
import { ConfirmDialog } from "../../components/confirm-dialog.js";
import { type Column, DataTable } from "../../components/data-table.js";
import { formatTime } from "../../components/display-values.js";
import { ActionNotice } from "../../components/notice.js";
import { useAction } from "../../components/use-action.js";
import { GuideMatches } from "./guide-matches.js";
import { GuideSourceForm } from "./guide-source-form.js";

function SourceState({ status }: { status: GuideStatus | undefined }) {
  if (status?.error) return <span class="badge badge-bad">{status.error}</span>;
  if (status?.stale) return <span class="badge badge-warn">stale</span>;
  if (status?.available) return <span class="badge badge-ok">available</span>;
  return <>—</>;
}

/** Guide sources with presets, refresh with per-source status, channel matches (spec "Guide"). */
export function GuideScreen() {
  const [sources, setSources] = useState<GuideSourceEntry[]>([]);
  const [statuses, setStatuses] = useState<GuideStatus[]>([]);
  const [presets, setPresets] = useState<GuideSourceWrite[]>([]);
  const [editing, setEditing] = useState<GuideSourceEntry | "new" | null>(null);
  const [toDelete, setToDelete] = useState<GuideSourceEntry | null>(null);
  const action = useAction();

  const reload = useCallback(async () => {
    const r = await api.guide.sources();
    setSources(r.sources);
    setStatuses(r.statuses);
  }, []);
  useEffect(() => {
    void action.run(reload);
    api.guide
      .presets()
      .then((r) => setPresets(r.presets ?? []))
      .catch(() => setPresets([]));
  }, [reload]);

  const statusOf = (id: string) => statuses.find((s) => s.source_id === id);
  const columns: Column<GuideSourceEntry>[] = [
    {
      header: "Source",
      cell: (e) => (
        <>
          {e.source.name || e.source.id}
          <span class="muted block">{e.source.url}</span>
        </>
      ),
    },
    { header: "Enabled", cell: (e) => (e.enabled ? "yes" : "no") },
    { header: "Last success", cell: (e) => formatTime(statusOf(e.source.id)?.last_success) },
    {
      header: "Channels / programmes",
      cell: (e) => {
        const st = statusOf(e.source.id);
        return st ? `${st.channel_count} / ${st.programme_count}` : "—";
      },
    },
    {
      header: "Status",
      cell: (e) => <SourceState status={statusOf(e.source.id)} />,
      cellClass: "wrap",
    },
    {
      header: "Actions",
      cellClass: "actions-cell",
      cell: (e) => (
        <>
          <button
            type="button"
            class="btn btn-small"
            aria-label={`Edit ${e.source.id}`}
            onClick={() => setEditing(e)}
          >
            Edit
          </button>
          <button
            type="button"
            class="btn btn-small btn-danger"
            aria-label={`Delete ${e.source.id}`}
            onClick={() => setToDelete(e)}
          >
            Delete
          </button>
        </>
      ),
    },
  ];
  return (
    <section aria-labelledby="guide-title">
      <h1 id="guide-title">Guide</h1>
      <div class="toolbar-actions">
        <button type="button" class="btn btn-primary" onClick={() => setEditing("new")}>
          Add source
        </button>
        <button
          type="button"
          class="btn"
          disabled={action.busy}
          onClick={() =>
            action.run(
              async () => {
                const r = await api.guide.refresh();
                setStatuses(r.statuses);
                return r;
              },
              (r) =>
                r.ok
                  ? "Every source refreshed."
                  : "Refresh done; some sources failed (see their status).",
            )
          }
        >
          Refresh guide
        </button>
      </div>
      <ActionNotice action={action} busyText="Refreshing the guide…" />
      {editing ? (
        <GuideSourceForm
          entry={editing === "new" ? null : editing}
          presets={presets}
          onDone={async (msg) => {
            setEditing(null);
            await action.run(reload, msg);
          }}
          onCancel={() => setEditing(null)}
        />
      ) : null}
      <DataTable
        caption="Sources"
        columns={columns}
        rows={sources}
        rowKey={(e) => e.source.id}
        empty="No guide source yet."
      />
      <GuideMatches />
      <ConfirmDialog
        open={toDelete !== null}
        title="Delete guide source"
        confirmLabel="Delete"
        onClose={() => setToDelete(null)}
        onConfirm={() => {
          const e = toDelete;
          if (e === null) return;
          void action.run(async () => {
            await api.guide.remove(e.source.id, e.revision);
            await reload();
          }, `${e.source.id} deleted (a preset is hidden instead).`);
        }}
      >
        <p>Delete the guide source "{toDelete?.source.id}"?</p>
      </ConfirmDialog>
    </section>
  );
}
