import { useCallback, useEffect, useState } from "preact/hooks";
import { api } from "../../api/client.js";
import type { Channel, IssuedPlaybackKey, PlaybackKey } from "../../api/wire.js";
import { ConfirmDialog } from "../../components/confirm-dialog.js";
import { EXPIRY_CHOICES, formatTime } from "../../components/display-values.js";
import { SelectField, TextField } from "../../components/field.js";
import { ActionNotice } from "../../components/notice.js";
import { SecretOnce } from "../../components/secret-once.js";
import { useAction } from "../../components/use-action.js";

function stateOf(k: PlaybackKey): string {
  if (k.revoked_at) return "revoked";
  if (!k.enabled) return "disabled";
  if (k.expires_at && Date.parse(k.expires_at) <= Date.now()) return "expired";
  return "active";
}

/** Playback keys (`/v1/admin/access-tokens`): path keys for players, shown once at creation. */
export function PlaybackKeysScreen() {
  const [keys, setKeys] = useState<PlaybackKey[]>([]);
  const [channels, setChannels] = useState<Channel[]>([]);
  const [issued, setIssued] = useState<IssuedPlaybackKey | null>(null);
  const [name, setName] = useState("");
  const [note, setNote] = useState("");
  const [scope, setScope] = useState<string[]>([]);
  const [expiry, setExpiry] = useState("0");
  const [confirm, setConfirm] = useState<{ kind: "revoke" | "delete"; key: PlaybackKey } | null>(
    null,
  );
  const action = useAction();

  const reload = useCallback(
    async () => setKeys((await api.playbackKeys.list()).access_tokens),
    [],
  );
  useEffect(() => {
    void action.run(reload);
    api.channels
      .list()
      .then((r) => setChannels(r.channels))
      .catch(() => setChannels([]));
  }, [reload]);

  const create = async (e: Event) => {
    e.preventDefault();
    const r = await action.run(
      () =>
        api.playbackKeys.create({ name, note, channel_ids: scope, expires_in_sec: Number(expiry) }),
      "Playback key created.",
    );
    if (r) {
      setIssued(r);
      setName("");
      setNote("");
      setScope([]);
      await reload();
    }
  };

  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">Playback keys</h1>
      <p class="muted">
        A playback key goes into player URLs (<code>/p/&lt;key&gt;/playlist.m3u</code>). It grants
        playback only, never admin access.
      </p>
      {issued ? (
        <SecretOnce
          title={`New playback key "${issued.name}"`}
          secret={issued.token}
          warning={issued.warning || "Copy the key now: it is never shown again."}
          extra={{ label: "Playlist URL", value: issued.playlist_url }}
          onDismiss={() => setIssued(null)}
        />
      ) : null}
      <ActionNotice action={action} />
      <form class="card" onSubmit={create} aria-labelledby="new-key-title">
        <h2 id="new-key-title">New playback key</h2>
        <div class="grid-2">
          <TextField label="Key name" value={name} onInput={setName} required />
          <TextField label="Key note" value={note} onInput={setNote} />
          <SelectField
            label="Key expiry"
            value={expiry}
            onChange={setExpiry}
            options={EXPIRY_CHOICES}
          />
          <div class="field">
            <label for="key-scope">Channels (none selected: all channels)</label>
            <select
              id="key-scope"
              multiple
              size={Math.min(6, Math.max(2, channels.length))}
              onChange={(e) =>
                setScope(
                  [...(e.currentTarget as HTMLSelectElement).selectedOptions].map((o) => o.value),
                )
              }
            >
              {channels.map((c) => (
                <option key={c.id} value={c.id} selected={scope.includes(c.id)}>
                  {c.title} ({c.id})
                </option>
              ))}
            </select>
          </div>
        </div>
        <button type="submit" class="btn btn-primary" disabled={action.busy}>
          Create key
        </button>
      </form>
      <div class="table-wrap">
        <table class="table">
          <caption>Keys</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Scope</th>
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
            {keys.map((k) => {
              const st = stateOf(k);
              return (
                <tr key={k.id} data-key={k.name}>
                  <td>{k.name}</td>
                  <td class="mono">{k.token_prefix}…</td>
                  <td>{k.scope.all ? "all channels" : k.scope.channel_ids.join(", ")}</td>
                  <td>
                    <span class={st === "active" ? "badge badge-ok" : "badge badge-bad"}>{st}</span>
                  </td>
                  <td class="hide-narrow">{k.expires_at ? formatTime(k.expires_at) : "never"}</td>
                  <td class="hide-narrow">{formatTime(k.last_used_at)}</td>
                  <td class="actions-cell">
                    <button
                      type="button"
                      class="btn btn-small"
                      disabled={st === "revoked"}
                      aria-label={`Revoke ${k.name}`}
                      onClick={() => setConfirm({ kind: "revoke", key: k })}
                    >
                      Revoke
                    </button>
                    <button
                      type="button"
                      class="btn btn-small btn-danger"
                      aria-label={`Delete ${k.name}`}
                      onClick={() => setConfirm({ kind: "delete", key: k })}
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
      {keys.length === 0 ? <p>No playback key yet.</p> : null}
      <ConfirmDialog
        open={confirm !== null}
        title={confirm?.kind === "revoke" ? "Revoke playback key" : "Delete playback key"}
        confirmLabel={confirm?.kind === "revoke" ? "Revoke" : "Delete"}
        onClose={() => setConfirm(null)}
        onConfirm={() => {
          const c = confirm;
          if (c === null) return;
          void action.run(
            async () => {
              if (c.kind === "revoke") await api.playbackKeys.revoke(c.key.id, c.key.revision);
              else await api.playbackKeys.remove(c.key.id, c.key.revision);
              await reload();
            },
            `${c.key.name} ${c.kind === "revoke" ? "revoked" : "deleted"}.`,
          );
        }}
      >
        <p>Players using "{confirm?.key.name}" get 401 from now on.</p>
      </ConfirmDialog>
    </section>
  );
}
