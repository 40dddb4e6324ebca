import { useState } from "preact/hooks";
import { api } from "../../api/client.js";
import type { ApiToken, Scope } from "../../api/wire.js";
import {
  type CredentialContext,
  CredentialManager,
  credentialState,
} from "../../components/credential-manager.js";
import { Fieldset } from "../../components/field.js";
import { RowButton } from "../../components/row-button.js";
import { Screen } from "../../components/screen.js";
import { AuditLog } from "./audit-log.js";
import { ScopeChecks } from "./scope-checks.js";
import { TokenEditor } from "./token-editor.js";

const loadTokens = async () => (await api.apiTokens.list()).tokens;

/** Edit, enable/disable and rotate: what a token has beyond revoke and delete. */
function TokenActions(p: { token: ApiToken; ctx: CredentialContext; onEdit: () => void }) {
  const { token: t, ctx } = p;
  const revoked = credentialState(t) === "revoked";
  return (
    <>
      <RowButton label="Edit" of={t.name} disabled={revoked} onClick={p.onEdit} />
      <RowButton
        label={t.enabled ? "Disable" : "Enable"}
        of={t.name}
        disabled={revoked || ctx.action.busy}
        onClick={() =>
          ctx.action.run(
            async () => {
              await api.apiTokens.update(t.id, t.revision, { enabled: !t.enabled });
              await ctx.reload();
            },
            `${t.name} ${t.enabled ? "disabled" : "enabled"}.`,
          )
        }
      />
      <RowButton
        label="Rotate"
        of={t.name}
        disabled={revoked || ctx.action.busy}
        onClick={async () => {
          const r = await ctx.action.run(
            () => api.apiTokens.rotate(t.id, t.revision),
            "Token rotated: the old secret stopped working.",
          );
          if (r) {
            ctx.showSecret({
              title: `Rotated API token "${t.name}"`,
              secret: r.token,
              warning: r.warning || "Copy the token now: it is never shown again.",
            });
            await ctx.reload();
          }
        }}
      />
    </>
  );
}

/** Admin API tokens (session-only routes): create, scopes, enable, rotate, revoke, delete; audit. */
export function ApiTokensScreen() {
  const [scopes, setScopes] = useState<Scope[]>(["read"]);
  const [editing, setEditing] = useState<ApiToken | null>(null);
  const [auditKey, setAuditKey] = useState(0);

  return (
    <Screen titleId="tokens-title" title="API tokens">
      <p class="muted">
        Tokens let scripts call the admin API with independent scopes. They cannot change login
        credentials or manage tokens.
      </p>
      <CredentialManager<ApiToken>
        noun={{ field: "Token", name: "token" }}
        empty="No API token yet."
        load={loadTokens}
        create={async (base) => {
          const r = await api.apiTokens.create({ ...base, scopes });
          return {
            title: `New API token "${r.credential.name}"`,
            secret: r.token,
            warning: r.warning || "Copy the token now: it is never shown again.",
          };
        }}
        createFields={
          <Fieldset legend="Scopes">
            <ScopeChecks scopes={scopes} onChange={setScopes} />
          </Fieldset>
        }
        columns={[{ header: "Scopes", cell: (t) => t.scopes.join(", ") }]}
        rowActions={(t, ctx) => <TokenActions token={t} ctx={ctx} onEdit={() => setEditing(t)} />}
        between={(ctx) =>
          editing ? (
            <TokenEditor
              token={editing}
              onDone={async (msg) => {
                setEditing(null);
                await ctx.action.run(ctx.reload, msg);
              }}
              onCancel={() => setEditing(null)}
            />
          ) : null
        }
        revoke={(t) => api.apiTokens.revoke(t.id, t.revision)}
        remove={(t) => api.apiTokens.remove(t.id, t.revision)}
        confirmText={(kind, t) =>
          kind === "revoke"
            ? `Revoke "${t.name}"? It stops working at once and cannot be enabled again.`
            : `Delete "${t.name}"? It stops working at once; its audit records stay.`
        }
      />
      <div class="row-actions">
        <button type="button" class="btn" onClick={() => setAuditKey((k) => k + 1)}>
          Refresh audit log
        </button>
      </div>
      <AuditLog key={auditKey} />
    </Screen>
  );
}
