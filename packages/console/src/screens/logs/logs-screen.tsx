import { useCallback, useState } from "preact/hooks";
import { api } from "../../api/client.js";
import type { AccessRecord } from "../../api/wire.js";
import { choicesOf } from "../../components/choices.js";
import { ConfirmDialog } from "../../components/confirm-dialog.js";
import { type Column, DataTable } from "../../components/data-table.js";
import { formatTime } from "../../components/display-values.js";
import { SelectField } from "../../components/field.js";
import { ActionNotice } from "../../components/notice.js";
import { Screen } from "../../components/screen.js";
import { thenReload, useAction, useAutoLoad } from "../../components/use-action.js";
import { useOptionalList } from "../../components/use-optional-list.js";

const COLUMNS: Column<AccessRecord>[] = [
  { header: "Time", cell: (l) => formatTime(l.created_at) },
  { header: "Key", cell: (l) => l.token_prefix, cellClass: "mono" },
  { header: "Path", cell: (l) => l.path, cellClass: "wrap mono" },
  { header: "Channel", cell: (l) => l.channel_id ?? "—" },
  { header: "Status", cell: (l) => l.status },
  { header: "Remote", cell: (l) => l.remote, class: "hide-narrow" },
];

/** Playback access log (`/v1/admin/access-logs`): filter by key, limit, clear. */
export function LogsScreen() {
  const [logs, setLogs] = useState<AccessRecord[]>([]);
  const keys = useOptionalList(async () => (await api.playbackKeys.list()).access_tokens);
  const [tokenId, setTokenId] = useState("");
  const [limit, setLimit] = useState("100");
  const [confirmClear, setConfirmClear] = useState(false);
  const action = useAction();

  const reload = useCallback(
    async () =>
      setLogs((await api.accessLogs.list({ limit: Number(limit), token_id: tokenId })).access_logs),
    [limit, tokenId],
  );
  useAutoLoad(action, reload);

  return (
    <Screen titleId="logs-title" title="Playback access log">
      <div class="toolbar">
        <SelectField
          label="Playback key"
          value={tokenId}
          onChange={setTokenId}
          options={choicesOf([{ value: "", label: "All keys" }], keys, (k) => ({
            value: k.id,
            label: `${k.name} (${k.token_prefix}…)`,
          }))}
        />
        <SelectField
          label="Records"
          value={limit}
          onChange={setLimit}
          options={["50", "100", "500", "1000"]}
        />
        <div class="toolbar-actions">
          <button type="button" class="btn" onClick={() => action.run(reload)}>
            Refresh
          </button>
          <button type="button" class="btn btn-danger" onClick={() => setConfirmClear(true)}>
            Clear log
          </button>
        </div>
      </div>
      <ActionNotice action={action} />
      <DataTable
        caption="Access records"
        captionHidden
        columns={COLUMNS}
        rows={logs}
        rowKey={(l) => l.id}
        empty={`No access recorded${tokenId ? " for this key" : ""}.`}
      />
      <ConfirmDialog
        open={confirmClear}
        title="Clear the access log"
        confirmLabel="Clear"
        onClose={() => setConfirmClear(false)}
        onConfirm={() =>
          void action.run(
            thenReload(() => api.accessLogs.clear(), reload),
            (r) => `Deleted ${r.deleted} record(s).`,
          )
        }
      >
        <p>Delete every playback access record? This cannot be undone.</p>
      </ConfirmDialog>
    </Screen>
  );
}
