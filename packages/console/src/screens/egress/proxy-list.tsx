import { useState } from "preact/hooks";
import { api } from "../../api/client.js";
import type { EgressProxy, EgressProxyWrite } from "../../api/wire.js";
import { Card } from "../../components/card.js";
import { CheckboxField, TextField } from "../../components/field.js";
import { RowButton } from "../../components/row-button.js";

/** Proxy profiles: the URL shows scheme and host only; stored credentials are kept unless replaced. */
export function ProxyList(p: {
  proxies: EgressProxy[];
  write: (fn: (revision: number) => Promise<unknown>, done: string) => Promise<unknown>;
}) {
  const [editing, setEditing] = useState<EgressProxyWrite | null>(null);
  const [isNew, setIsNew] = useState(false);
  const [id, setId] = useState("");
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [disabled, setDisabled] = useState(false);
  const open = (px: EgressProxy | null) => {
    setIsNew(px === null);
    setEditing(px ?? { id: "", url: "" });
    setId(px?.id ?? "");
    setName(px?.name ?? "");
    setUrl(px?.url ?? "");
    setDisabled(px?.disabled ?? false);
  };
  return (
    <Card titleId="proxies-title" title="Proxy profiles">
      {p.proxies.length === 0 ? (
        <p>No proxy profile.</p>
      ) : (
        <ul class="plain-list">
          {p.proxies.map((px) => (
            <li key={px.id}>
              <strong>{px.name || px.id}</strong> <span class="mono">{px.url}</span>{" "}
              {px.credential_configured ? (
                <span class="badge badge-set">credentials set</span>
              ) : null}{" "}
              {px.disabled ? <span class="badge badge-bad">disabled</span> : null}
              <RowButton label="Edit" of={`proxy ${px.id}`} onClick={() => open(px)} />
              <RowButton
                label="Delete"
                of={`proxy ${px.id}`}
                danger
                onClick={() =>
                  void p.write(
                    (rev) => api.egress.removeProxy(rev, px.id),
                    `Proxy ${px.id} deleted; rules using it were removed.`,
                  )
                }
              />
            </li>
          ))}
        </ul>
      )}
      {editing ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            const body: EgressProxyWrite = { id, name, url, disabled };
            void p
              .write(
                (rev) =>
                  isNew ? api.egress.createProxy(rev, body) : api.egress.updateProxy(rev, id, body),
                `Proxy ${id} saved.`,
              )
              .then(() => setEditing(null));
          }}
        >
          <div class="grid-2">
            <TextField label="Proxy ID" value={id} onInput={setId} readOnly={!isNew} />
            <TextField label="Proxy name" value={name} onInput={setName} />
            <TextField
              label="Proxy URL"
              value={url}
              onInput={setUrl}
              hint="http, https, socks5 or socks5h; credentials kept when scheme and host stay"
            />
          </div>
          <CheckboxField label="Proxy disabled" checked={disabled} onChange={setDisabled} />
          <div class="row-actions">
            <button type="submit" class="btn btn-primary">
              Save proxy
            </button>
            <button type="button" class="btn" onClick={() => setEditing(null)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <button type="button" class="btn" onClick={() => open(null)}>
          Add proxy
        </button>
      )}
    </Card>
  );
}
