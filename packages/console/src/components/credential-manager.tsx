import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useId, useState } from "preact/hooks";
import { Card } from "./card.js";
import { ConfirmFor } from "./confirm-dialog.js";
import { type Column, DataTable } from "./data-table.js";
import { EXPIRY_CHOICES, formatTime } from "./display-values.js";
import { SelectField, TextField } from "./field.js";
import { ActionNotice } from "./notice.js";
import { RowButton } from "./row-button.js";
import { SecretOnce } from "./secret-once.js";
import { type Action, thenReload, useAction } from "./use-action.js";

/** What API tokens and playback keys share on the wire. */
export interface Credential {
  id: string;
  name: string;
  token_prefix: string;
  enabled: boolean;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at?: string | null;
  revision: number;
}

/** A plaintext secret the API answered once (create or rotate). */
export interface IssuedSecret {
  title: string;
  secret: string;
  warning: string;
  extra?: { label: string; value: string };
  /** More values shown with it, each with its copy button (an Xtream login). */
  more?: { label: string; value: string }[];
  /** URLs shown as QR codes for TV apps (a playlist URL). */
  qr?: { label: string; value: string }[];
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function credentialState(c: Credential): "revoked" | "disabled" | "expired" | "active" {
  if (c.revoked_at) return "revoked";
  if (!c.enabled) return "disabled";
  if (c.expires_at && Date.parse(c.expires_at) <= Date.now()) return "expired";
  return "active";
}

/** What a row's extra buttons can do: run through the shared action, reload, show a secret. */
export interface CredentialContext {
  action: Action;
  reload: () => Promise<void>;
  showSecret: (secret: IssuedSecret) => void;
}

export interface CredentialManagerProps<C extends Credential> {
  /**
   * What the screen calls one: `field` starts the labels (`Token name`, the `Tokens`
   * caption) and names the row attribute the tests and links find a row by
   * (`data-token`); `name` the sentences (`New token`, `Delete token`, `Token created.`).
   */
  noun: { field: string; name: string };
  empty: string;
  load: () => Promise<C[]>;
  /** Creates from the shared fields; the screen adds its own (scopes, channels). */
  create: (base: { name: string; note: string; expires_in_sec: number }) => Promise<IssuedSecret>;
  /** The screen's own create fields, and what to reset after a create. */
  createFields: ComponentChildren;
  onCreated?: () => void;
  /** The screen's own columns, between Prefix and State. */
  columns: Column<C>[];
  /** Buttons before Revoke and Delete (edit, enable, rotate). */
  rowActions?: (c: C, ctx: CredentialContext) => ComponentChildren;
  revoke: (c: C) => Promise<unknown>;
  remove: (c: C) => Promise<unknown>;
  confirmText: (kind: "revoke" | "delete", c: C) => string;
  /** Rendered between the create form and the table (an editor). */
  between?: (ctx: CredentialContext) => ComponentChildren;
}

/**
 * The list + create/rotate/revoke/delete flow API tokens and playback keys share:
 * the secret shown once, the confirmations, the states, the table.
 */
export function CredentialManager<C extends Credential>(p: CredentialManagerProps<C>) {
  const [rows, setRows] = useState<C[]>([]);
  const [issued, setIssued] = useState<IssuedSecret | null>(null);
  const [name, setName] = useState("");
  const [note, setNote] = useState("");
  const [expiry, setExpiry] = useState("0");
  const [confirm, setConfirm] = useState<{ kind: "revoke" | "delete"; row: C } | null>(null);
  const action = useAction();
  const formTitle = useId();
  const { load } = p;

  const reload = useCallback(async () => setRows(await load()), [load]);
  useEffect(() => {
    void action.run(reload);
  }, [reload]);
  const ctx: CredentialContext = { action, reload, showSecret: setIssued };

  const create = async () => {
    const r = await action.run(
      () => p.create({ name, note, expires_in_sec: Number(expiry) }),
      `${capitalized(p.noun.name)} created.`,
    );
    if (r) {
      setIssued(r);
      setName("");
      setNote("");
      p.onCreated?.();
      await reload();
    }
  };

  const columns: Column<C>[] = [
    { header: "Name", cell: (c) => c.name },
    { header: "Prefix", cell: (c) => `${c.token_prefix}…`, cellClass: "mono" },
    ...p.columns,
    {
      header: "State",
      cell: (c) => {
        const st = credentialState(c);
        return <span class={st === "active" ? "badge badge-ok" : "badge badge-bad"}>{st}</span>;
      },
    },
    {
      header: "Expires",
      class: "hide-narrow",
      cell: (c) => (c.expires_at ? formatTime(c.expires_at) : "never"),
    },
    { header: "Last used", class: "hide-narrow", cell: (c) => formatTime(c.last_used_at) },
    {
      header: "Actions",
      cellClass: "actions-cell",
      cell: (c) => (
        <>
          {p.rowActions?.(c, ctx)}
          <RowButton
            label="Revoke"
            of={c.name}
            disabled={credentialState(c) === "revoked"}
            onClick={() => setConfirm({ kind: "revoke", row: c })}
          />
          <RowButton
            label="Delete"
            of={c.name}
            danger
            onClick={() => setConfirm({ kind: "delete", row: c })}
          />
        </>
      ),
    },
  ];

  return (
    <>
      {issued ? <SecretOnce {...issued} onDismiss={() => setIssued(null)} /> : null}
      <ActionNotice action={action} />
      <Card titleId={formTitle} title={`New ${p.noun.name}`} onSubmit={() => void create()}>
        <div class="grid-2">
          <TextField label={`${p.noun.field} name`} value={name} onInput={setName} required />
          <TextField label={`${p.noun.field} note`} value={note} onInput={setNote} />
          <SelectField
            label={`${p.noun.field} expiry`}
            value={expiry}
            onChange={setExpiry}
            options={EXPIRY_CHOICES}
          />
        </div>
        {p.createFields}
        <button type="submit" class="btn btn-primary" disabled={action.busy}>
          Create {p.noun.field.toLowerCase()}
        </button>
      </Card>
      {p.between?.(ctx)}
      <DataTable
        caption={`${p.noun.field}s`}
        columns={columns}
        rows={rows}
        rowKey={(c) => c.id}
        rowProps={(c) => ({ [`data-${p.noun.field.toLowerCase()}`]: c.name })}
        empty={p.empty}
      />
      <ConfirmFor
        target={confirm}
        title={`${confirm?.kind === "revoke" ? "Revoke" : "Delete"} ${p.noun.name}`}
        confirmLabel={confirm?.kind === "revoke" ? "Revoke" : "Delete"}
        onClose={() => setConfirm(null)}
        onConfirm={(c) =>
          void action.run(
            thenReload(() => (c.kind === "revoke" ? p.revoke(c.row) : p.remove(c.row)), reload),
            `${c.row.name} ${c.kind === "revoke" ? "revoked" : "deleted"}.`,
          )
        }
      >
        {(c) => <p>{p.confirmText(c.kind, c.row)}</p>}
      </ConfirmFor>
    </>
  );
}
