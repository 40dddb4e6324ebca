import { useCallback, useState } from "preact/hooks";
import { ApiError } from "../../api/api-error.js";
import { api } from "../../api/client.js";
import type { M3uSource, M3uSourceStatus } from "../../api/wire.js";
import { ConfirmDelete } from "../../components/confirm-dialog.js";
import { type Column, DataTable } from "../../components/data-table.js";
import { formatTime } from "../../components/display-values.js";
import { EditDeleteButtons } from "../../components/edit-delete-buttons.js";
import { ActionNotice } from "../../components/notice.js";
import { RowButton } from "../../components/row-button.js";
import { Screen } from "../../components/screen.js";
import { SourceCell } from "../../components/source-cell.js";
import { thenReload, useAction, useAutoLoad } from "../../components/use-action.js";
import { useRowEditor } from "../../components/use-row-editor.js";
import { M3uSourceForm } from "./m3u-source-form.js";

function LastResult({ status }: { status: M3uSourceStatus | undefined }) {
  if (status === undefined || status.last_attempt === null) return <>—</>;
  if (status.error !== null) return <span class="badge badge-bad">{status.error}</span>;
  return (
    <span class="badge badge-ok">
      {`+${status.created} created, ${status.updated} updated, ${status.disabled} gone, ${status.skipped} skipped`}
    </span>
  );
}

/** M3U provider sources with "refresh now" and each one's last result (docs/m3u-sources.md). */
export function M3uSourcesScreen() {
  const [sources, setSources] = useState<M3uSource[]>([]);
  const [statuses, setStatuses] = useState<M3uSourceStatus[]>([]);
  const [off, setOff] = useState(false);
  const action = useAction();

  const reload = useCallback(async () => {
    try {
      const [s, st] = await Promise.all([api.m3uSources.list(), api.m3uSources.statuses()]);
      setSources(s.sources);
      setStatuses(st.statuses);
    } catch (err) {
      // The extension is switched off: its routes do not exist.
      if (err instanceof ApiError && err.status === 404) setOff(true);
      else throw err;
    }
  }, []);
  useAutoLoad(action, reload);
  const rows = useRowEditor<M3uSource>(action, reload);

  const statusOf = (id: string) => statuses.find((s) => s.source_id === id);
  const columns: Column<M3uSource>[] = [
    {
      header: "Source",
      cell: (s) => <SourceCell {...s} />,
    },
    { header: "Every", cell: (s) => (s.enabled ? `${s.refresh_interval_min} min` : "manual") },
    { header: "Last success", cell: (s) => formatTime(statusOf(s.id)?.last_success) },
    {
      header: "Last result",
      cell: (s) => <LastResult status={statusOf(s.id)} />,
      cellClass: "wrap",
    },
    {
      header: "Actions",
      cellClass: "actions-cell",
      cell: (s) => (
        <>
          <RowButton
            label="Refresh now"
            of={s.id}
            disabled={action.busy}
            onClick={() =>
              action.run(
                thenReload(() => api.m3uSources.refresh(s.id), reload),
                (r) => (r.ok ? `${s.id} refreshed.` : `${s.id} failed: ${r.status.error}`),
              )
            }
          />
          <EditDeleteButtons row={s} of={s.id} editor={rows} />
        </>
      ),
    },
  ];
  if (off)
    return (
      <Screen titleId="m3u-sources-title" title="M3U sources">
        <p>
          M3U provider sources are switched off: set <code>extensions.m3u_sources: true</code> in
          the config file.
        </p>
      </Screen>
    );
  return (
    <Screen titleId="m3u-sources-title" title="M3U sources">
      <div class="toolbar-actions">
        <button type="button" class="btn btn-primary" onClick={() => rows.edit("new")}>
          Add source
        </button>
      </div>
      <ActionNotice action={action} busyText="Working…" />
      {rows.form((source) => (
        <M3uSourceForm source={source} {...rows.formProps} />
      ))}
      <DataTable
        caption="Sources"
        columns={columns}
        rows={sources}
        rowKey={(s) => s.id}
        empty="No M3U source yet."
      />
      <ConfirmDelete
        noun="M3U source"
        target={rows.toDelete}
        onClose={rows.closeDelete}
        onDelete={(s) =>
          void action.run(
            thenReload(() => api.m3uSources.remove(s.id, s.revision), reload),
            `${s.id} deleted; its channels stay.`,
          )
        }
      >
        {(s) => <p>Delete the M3U source "{s.id}"? Its channels stay, no longer synced.</p>}
      </ConfirmDelete>
    </Screen>
  );
}
