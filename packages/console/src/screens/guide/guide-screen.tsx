import { useCallback, useState } from "preact/hooks";
import { api } from "../../api/client.js";
import type { GuideSourceEntry, GuideStatus } from "../../api/wire.js";
import { ActionButton } from "../../components/action-button.js";
import { ConfirmDelete } from "../../components/confirm-dialog.js";
import { type Column, DataTable } from "../../components/data-table.js";
import { formatTime } from "../../components/display-values.js";
import { EditDeleteButtons } from "../../components/edit-delete-buttons.js";
import { ActionNotice } from "../../components/notice.js";
import { Screen } from "../../components/screen.js";
import { SourceCell } from "../../components/source-cell.js";
import { thenReload, useAction, useAutoLoad } from "../../components/use-action.js";
import { useOptionalList } from "../../components/use-optional-list.js";
import { useRowEditor } from "../../components/use-row-editor.js";
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
  const presets = useOptionalList(async () => (await api.guide.presets()).presets ?? []);
  const action = useAction();

  const reload = useCallback(async () => {
    const r = await api.guide.sources();
    setSources(r.sources);
    setStatuses(r.statuses);
  }, []);
  useAutoLoad(action, reload);
  const rows = useRowEditor<GuideSourceEntry>(action, reload);

  const statusOf = (id: string) => statuses.find((s) => s.source_id === id);
  const columns: Column<GuideSourceEntry>[] = [
    {
      header: "Source",
      cell: (e) => <SourceCell {...e.source} />,
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
      cell: (e) => <EditDeleteButtons row={e} of={e.source.id} editor={rows} />,
    },
  ];
  return (
    <Screen titleId="guide-title" title="Guide">
      <div class="toolbar-actions">
        <button type="button" class="btn btn-primary" onClick={() => rows.edit("new")}>
          Add source
        </button>
        <ActionButton
          action={action}
          run={() => api.guide.refresh()}
          onValue={(r) => setStatuses(r.statuses)}
          done={(r) =>
            r.ok
              ? "Every source refreshed."
              : "Refresh done; some sources failed (see their status)."
          }
        >
          Refresh guide
        </ActionButton>
      </div>
      <ActionNotice action={action} busyText="Refreshing the guide…" />
      {rows.form((entry) => (
        <GuideSourceForm entry={entry} presets={presets} {...rows.formProps} />
      ))}
      <DataTable
        caption="Sources"
        columns={columns}
        rows={sources}
        rowKey={(e) => e.source.id}
        empty="No guide source yet."
      />
      <GuideMatches />
      <ConfirmDelete
        noun="guide source"
        target={rows.toDelete}
        onClose={rows.closeDelete}
        onDelete={(e) =>
          void action.run(
            thenReload(() => api.guide.remove(e.source.id, e.revision), reload),
            `${e.source.id} deleted (a preset is hidden instead).`,
          )
        }
      >
        {(e) => <p>Delete the guide source "{e.source.id}"?</p>}
      </ConfirmDelete>
    </Screen>
  );
}
