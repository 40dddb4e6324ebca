import { useCallback, useEffect, useState } from "preact/hooks";
import { api } from "../../api/client.js";
import type { GuideSourceEntry, GuideSourceWrite, GuideStatus } from "../../api/wire.js";
import { ConfirmDialog } from "../../components/confirm-dialog.js";
import { formatTime } from "../../components/display-values.js";
import { ActionNotice } from "../../components/notice.js";
import { useAction } from "../../components/use-action.js";
import { GuideMatches } from "./guide-matches.js";
import { GuideSourceForm } from "./guide-source-form.js";

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
      <div class="table-wrap">
        <table class="table">
          <caption>Sources</caption>
          <thead>
            <tr>
              <th scope="col">Source</th>
              <th scope="col">Enabled</th>
              <th scope="col">Last success</th>
              <th scope="col">Channels / programmes</th>
              <th scope="col">Status</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {sources.map((e) => {
              const st = statusOf(e.source.id);
              return (
                <tr key={e.source.id}>
                  <td>
                    {e.source.name || e.source.id}
                    <span class="muted block">{e.source.url}</span>
                  </td>
                  <td>{e.enabled ? "yes" : "no"}</td>
                  <td>{formatTime(st?.last_success)}</td>
                  <td>{st ? `${st.channel_count} / ${st.programme_count}` : "—"}</td>
                  <td class="wrap">
                    {st?.error ? (
                      <span class="badge badge-bad">{st.error}</span>
                    ) : st?.stale ? (
                      <span class="badge badge-warn">stale</span>
                    ) : st?.available ? (
                      <span class="badge badge-ok">available</span>
                    ) : (
                      "—"
                    )}
                  </td>
                  <td class="actions-cell">
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
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {sources.length === 0 ? <p>No guide source yet.</p> : null}
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
