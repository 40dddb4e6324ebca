import { useState } from "preact/hooks";
import { api } from "../../api/client.js";
import type { GuideSourceEntry, GuideSourceWrite } from "../../api/wire.js";
import { choicesOf } from "../../components/choices.js";
import { EditForm } from "../../components/edit-form.js";
import { CheckboxField, SelectField, TextField } from "../../components/field.js";

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
  const usePreset = (pid: string) => {
    const pr = p.presets.find((x) => x.id === pid);
    if (!pr) return;
    setId(pr.id);
    setName(pr.name ?? "");
    setUrl(pr.url ?? "");
    setTimezone(pr.timezone ?? "UTC");
  };
  const save = () => {
    const body: GuideSourceWrite = { id, name, url, timezone, proxy, enabled };
    return p.entry ? api.guide.update(id, p.entry.revision, body) : api.guide.create(body);
  };
  return (
    <EditForm
      titleId="guide-form-title"
      title={p.entry ? `Edit ${s?.id}` : "New guide source"}
      submitLabel="Save source"
      save={save}
      saved={`Guide source ${id} saved.`}
      onDone={p.onDone}
      onCancel={p.onCancel}
    >
      {!p.entry && p.presets.length > 0 ? (
        <SelectField
          label="Start from a preset"
          value=""
          onChange={usePreset}
          options={choicesOf([{ value: "", label: "(none)" }], p.presets, (x) => ({
            value: x.id,
            label: x.name ?? x.id,
          }))}
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
    </EditForm>
  );
}
