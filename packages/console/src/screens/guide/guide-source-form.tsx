import { useState } from "preact/hooks";
import { api } from "../../api/client.js";
import type { GuideSourceEntry, GuideSourceWrite } from "../../api/wire.js";
import { CheckboxField, SelectField, TextField } from "../../components/field.js";
import { ActionNotice } from "../../components/notice.js";
import { useAction } from "../../components/use-action.js";

/** Create (optionally from a preset) or edit a guide source; edits send `If-Match`. */
export function GuideSourceForm(p: {
  entry: GuideSourceEntry | null;
  presets: GuideSourceWrite[];
  onDone: (message: string) => void;
  onCancel: () => void;
}) {
  const s = p.entry?.source;
  const [id, setId] = useState(s?.id ?? "");
  const [name, setName] = useState(s?.name ?? "");
  const [url, setUrl] = useState(s?.url ?? "");
  const [timezone, setTimezone] = useState(s?.timezone ?? "UTC");
  const [proxy, setProxy] = useState(s?.proxy ?? "direct");
  const [enabled, setEnabled] = useState(p.entry?.enabled ?? true);
  const action = useAction();
  const usePreset = (pid: string) => {
    const pr = p.presets.find((x) => x.id === pid);
    if (!pr) return;
    setId(pr.id);
    setName(pr.name ?? "");
    setUrl(pr.url ?? "");
    setTimezone(pr.timezone ?? "UTC");
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    const body: GuideSourceWrite = { id, name, url, timezone, proxy, enabled };
    const ok = await action.run(() =>
      p.entry ? api.guide.update(id, p.entry.revision, body) : api.guide.create(body),
    );
    if (ok) p.onDone(`Guide source ${id} saved.`);
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="guide-form-title">
      <h2 id="guide-form-title">{p.entry ? `Edit ${s?.id}` : "New guide source"}</h2>
      {!p.entry && p.presets.length > 0 ? (
        <SelectField
          label="Start from a preset"
          value=""
          onChange={usePreset}
          options={[
            { value: "", label: "(none)" },
            ...p.presets.map((x) => ({ value: x.id, label: x.name ?? x.id })),
          ]}
        />
      ) : null}
      <div class="grid-2">
        <TextField
          label="Source ID"
          value={id}
          onInput={setId}
          readOnly={p.entry !== null}
          required
        />
        <TextField label="Source name" value={name} onInput={setName} />
        <TextField label="XMLTV URL" type="url" value={url} onInput={setUrl} />
        <TextField label="Time zone (IANA)" value={timezone} onInput={setTimezone} />
        <TextField label="Route (direct, auto or a proxy id)" value={proxy} onInput={setProxy} />
      </div>
      <CheckboxField label="Source enabled" checked={enabled} onChange={setEnabled} />
      <ActionNotice action={action} />
      <div class="row-actions">
        <button type="submit" class="btn btn-primary" disabled={action.busy}>
          Save source
        </button>
        <button type="button" class="btn" onClick={p.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
