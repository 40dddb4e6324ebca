import { useState } from "preact/hooks";
import { api } from "../../api/client.js";
import type { ApiToken, Scope } from "../../api/wire.js";
import { EditForm } from "../../components/edit-form.js";
import { Fieldset, TextField } from "../../components/field.js";
import { ScopeChecks } from "./scope-checks.js";

/** `PUT /v1/admin/api-tokens/{id}` with the revision it was opened at. */
export function TokenEditor(p: {
  token: ApiToken;
  onDone: (message: string) => void;
  onCancel: () => void;
}) {
  const t = p.token;
  const [name, setName] = useState(t.name);
  const [note, setNote] = useState(t.note);
  const [scopes, setScopes] = useState<Scope[]>(t.scopes);
  const [expires, setExpires] = useState(t.expires_at ? t.expires_at.slice(0, 16) : "");
  return (
    <EditForm
      titleId="edit-token-title"
      title={`Edit token ${t.name}`}
      submitLabel="Save token"
      save={() =>
        api.apiTokens.update(t.id, t.revision, {
          name,
          note,
          scopes,
          expires_at: expires === "" ? null : new Date(`${expires}Z`).toISOString(),
        })
      }
      saved={`${name} saved.`}
      onDone={p.onDone}
      onCancel={p.onCancel}
    >
      <div class="grid-2">
        <TextField label="Name" value={name} onInput={setName} />
        <TextField label="Note" value={note} onInput={setNote} />
        <TextField
          label="Expires at (UTC)"
          type="datetime-local"
          value={expires}
          onInput={setExpires}
          hint="Blank: never"
        />
      </div>
      <Fieldset legend="Scopes">
        <ScopeChecks scopes={scopes} onChange={setScopes} />
      </Fieldset>
    </EditForm>
  );
}
