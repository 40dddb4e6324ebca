import { useCallback, useEffect, useState } from "preact/hooks";
import { api } from "../../api/client.js";
import type { ApiToken, IssuedApiToken, Scope } from "../../api/wire.js";
import { ConfirmDialog } from "../../components/confirm-dialog.js";
import { EXPIRY_CHOICES, formatTime } from "../../components/display-values.js";
import { CheckboxField, Fieldset, SelectField, TextField } from "../../components/field.js";
import { ActionNotice } from "../../components/notice.js";
import { SecretOnce } from "../../components/secret-once.js";
import { useAction } from "../../components/use-action.js";
import { AuditLog } from "./audit-log.js";
import { TokenEditor } from "./token-editor.js";

const ALL_SCOPES: Scope[] = ["read", "write", "delete", "refresh"];

function stateOf(t: ApiToken): string {
  if (t.revoked_at) return "revoked";
  if (!t.enabled) return "disabled";
  if (t.expires_at && Date.parse(t.expires_at) <= Date.now()) return "expired";
  return "active";
}

/** Admin API tokens (session-only routes): create, scopes, enable, rotate, revoke, delete; audit. */
export function ApiTokensScreen() {
  const [tokens, setTokens] = useState<ApiToken[]>([]);
  const [issued, setIssued] = useState<{ title: string; answer: IssuedApiToken } | null>(null);
  const [name, setName] = useState("");
  const [note, setNote] = useState("");
  const [scopes, setScopes] = useState<Scope[]>(["read"]);
  const [expiry, setExpiry] = useState("0");
  const [editing, setEditing] = useState<ApiToken | null>(null);
  const [confirm, setConfirm] = useState<{ kind: "revoke" | "delete"; token: ApiToken } | null>(
    null,
  );
  const [auditKey, setAuditKey] = useState(0);
  const action = useAction();

  const reload = useCallback(async () => setTokens((await api.apiTokens.list()).tokens), []);
  useEffect(() => {
    void action.run(reload);
  }, [reload]);

  const create = async (e: Event) => {
    e.preventDefault();
    const r = await action.run(
      () => api.apiTokens.create({ name, note, scopes, expires_in_sec: Number(expiry) }),
      "Token created.",
    );
    if (r) {
      setIssued({ title: `New API token "${r.credential.name}"`, answer: r });
      setName("");
      setNote("");
      await reload();
    }
  };

  return (
    <section aria-labelledby="tokens-title">
      <h1 id="tokens-title">API tokens</h1>
      <p class="muted">
        Tokens let scripts call the admin API with independent scopes. They cannot change login
        credentials or manage tokens.
      </p>
      {issued ? (
        <SecretOnce
          title={issued.title}
          secret={issued.answer.token}
          warning={issued.answer.warning || "Copy the token now: it is never shown again."}
          onDismiss={() => setIssued(null)}
        />
      ) : null}
      <ActionNotice action={action} />
      <form class="card" onSubmit={create} aria-labelledby="new-token-title">
        <h2 id="new-token-title">New token</h2>
        <div class="grid-2">
          <TextField label="Token name" value={name} onInput={setName} required />
          <TextField label="Token note" value={note} onInput={setNote} />
          <SelectField
            label="Token expiry"
            value={expiry}
            onChange={setExpiry}
            options={EXPIRY_CHOICES}
          />
        </div>
        <Fieldset legend="Scopes">
          <div class="checks">
            {ALL_SCOPES.map((s) => (
              <CheckboxField
                key={s}
                label={s}
                checked={scopes.includes(s)}
                onChange={(on) => setScopes(on ? [...scopes, s] : scopes.filter((x) => x !== s))}
              />
            ))}
          </div>
        </Fieldset>
        <button type="submit" class="btn btn-primary" disabled={action.busy}>
          Create token
        </button>
      </form>
      {editing ? (
        <TokenEditor
          token={editing}
          onDone={async (msg) => {
            setEditing(null);
            await action.run(reload, msg);
          }}
          onCancel={() => setEditing(null)}
        />
      ) : null}
      <div class="table-wrap">
        <table class="table">
          <caption>Tokens</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Scopes</th>
              <th scope="col">State</th>
              <th scope="col" class="hide-narrow">
                Expires
              </th>
              <th scope="col" class="hide-narrow">
                Last used
              </th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {tokens.map((t) => {
              const st = stateOf(t);
              return (
                <tr key={t.id} data-token={t.name}>
                  <td>{t.name}</td>
                  <td class="mono">{t.token_prefix}…</td>
                  <td>{t.scopes.join(", ")}</td>
                  <td>
                    <span class={st === "active" ? "badge badge-ok" : "badge badge-bad"}>{st}</span>
                  </td>
                  <td class="hide-narrow">{t.expires_at ? formatTime(t.expires_at) : "never"}</td>
                  <td class="hide-narrow">{formatTime(t.last_used_at)}</td>
                  <td class="actions-cell">
                    <button
                      type="button"
                      class="btn btn-small"
                      disabled={st === "revoked"}
                      onClick={() => setEditing(t)}
                      aria-label={`Edit ${t.name}`}
                    >
                      Edit
                    </button>
                    <button
                      type="button"
                      class="btn btn-small"
                      disabled={st === "revoked" || action.busy}
                      aria-label={`${t.enabled ? "Disable" : "Enable"} ${t.name}`}
                      onClick={() =>
                        action.run(
                          async () => {
                            await api.apiTokens.update(t.id, t.revision, { enabled: !t.enabled });
                            await reload();
                          },
                          `${t.name} ${t.enabled ? "disabled" : "enabled"}.`,
                        )
                      }
                    >
                      {t.enabled ? "Disable" : "Enable"}
                    </button>
                    <button
                      type="button"
                      class="btn btn-small"
                      disabled={st === "revoked" || action.busy}
                      aria-label={`Rotate ${t.name}`}
                      onClick={async () => {
                        const r = await action.run(
                          () => api.apiTokens.rotate(t.id, t.revision),
                          "Token rotated: the old secret stopped working.",
                        );
                        if (r) {
                          setIssued({ title: `Rotated API token "${t.name}"`, answer: r });
                          await reload();
                        }
                      }}
                    >
                      Rotate
                    </button>
                    <button
                      type="button"
                      class="btn btn-small"
                      disabled={st === "revoked"}
                      aria-label={`Revoke ${t.name}`}
                      onClick={() => setConfirm({ kind: "revoke", token: t })}
                    >
                      Revoke
                    </button>
                    <button
                      type="button"
                      class="btn btn-small btn-danger"
                      aria-label={`Delete ${t.name}`}
                      onClick={() => setConfirm({ kind: "delete", token: t })}
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
      {tokens.length === 0 ? <p>No API token yet.</p> : null}
      <ConfirmDialog
        open={confirm !== null}
        title={confirm?.kind === "revoke" ? "Revoke token" : "Delete token"}
        confirmLabel={confirm?.kind === "revoke" ? "Revoke" : "Delete"}
        onClose={() => setConfirm(null)}
        onConfirm={() => {
          const c = confirm;
          if (c === null) return;
          void action.run(
            async () => {
              if (c.kind === "revoke") await api.apiTokens.revoke(c.token.id, c.token.revision);
              else await api.apiTokens.remove(c.token.id, c.token.revision);
              await reload();
            },
            `${c.token.name} ${c.kind === "revoke" ? "revoked" : "deleted"}.`,
          );
        }}
      >
        <p>
          {confirm?.kind === "revoke"
            ? `Revoke "${confirm?.token.name}"? It stops working at once and cannot be enabled again.`
            : `Delete "${confirm?.token.name}"? It stops working at once; its audit records stay.`}
        </p>
      </ConfirmDialog>
      <div class="row-actions">
        <button type="button" class="btn" onClick={() => setAuditKey((k) => k + 1)}>
          Refresh audit log
        </button>
      </div>
      <AuditLog key={auditKey} />
    </section>
  );
}
