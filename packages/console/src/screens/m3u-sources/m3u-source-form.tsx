import { useState } from "preact/hooks";
import { api } from "../../api/client.js";
import type { M3uSource } from "../../api/wire.js";
import { EditForm } from "../../components/edit-form.js";
import { CheckboxField, TextField } from "../../components/field.js";

/** Create or edit an M3U provider source; edits send the loaded revision as `If-Match`. */
export function M3uSourceForm(p: {
  source: M3uSource | null;
  onDone: (message: string) => void;
  onCancel: () => void;
}) {
  const s = p.source;
  const [id, setId] = useState(s?.id ?? "");
  const [name, setName] = useState(s?.name ?? "");
  const [url, setUrl] = useState(s?.url ?? "");
  const [upstream, setUpstream] = useState(s?.upstream ?? "");
  const [intervalMin, setIntervalMin] = useState(String(s?.refresh_interval_min ?? 60));
  const [groups, setGroups] = useState((s?.group_filter ?? []).join(", "));
  const [enabled, setEnabled] = useState(s?.enabled ?? true);
  const [removeMissing, setRemoveMissing] = useState(s?.remove_missing ?? false);
  const save = () => {
    const body = {
      name,
      url,
      upstream,
      refresh_interval_min: Number(intervalMin),
      group_filter: groups
        .split(",")
        .map((g) => g.trim())
        .filter((g) => g !== ""),
      enabled,
      remove_missing: removeMissing,
    };
    return s
      ? api.m3uSources.update(s.id, s.revision, body)
      : api.m3uSources.create({ id, ...body });
  };
  return (
    <EditForm
      titleId="m3u-source-form-title"
      title={s ? `Edit ${s.id}` : "New M3U source"}
      submitLabel="Save source"
      save={save}
      saved={`M3U source ${id} saved.`}
      onDone={p.onDone}
      onCancel={p.onCancel}
    >
      <div class="grid-2">
        <TextField label="Source ID" value={id} onInput={setId} readOnly={s !== null} required />
        <TextField label="Source name" value={name} onInput={setName} />
        <TextField
          label="Playlist URL (or a path under the upstream)"
          value={url}
          onInput={setUrl}
          required
        />
        <TextField label="Upstream (optional)" value={upstream} onInput={setUpstream} />
        <TextField
          label="Refresh every (minutes)"
          type="number"
          value={intervalMin}
          onInput={setIntervalMin}
        />
        <TextField
          label="Groups to keep (comma-separated, exact; empty keeps all)"
          value={groups}
          onInput={setGroups}
        />
      </div>
      <CheckboxField label="Refresh on schedule" checked={enabled} onChange={setEnabled} />
      <CheckboxField
        label="Delete channels that leave the playlist (instead of disabling them)"
        checked={removeMissing}
        onChange={setRemoveMissing}
      />
    </EditForm>
  );
}
