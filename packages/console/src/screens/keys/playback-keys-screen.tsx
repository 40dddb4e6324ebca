import { useState } from "preact/hooks";
import { api } from "../../api/client.js";
import type { PlaybackKey } from "../../api/wire.js";
import { CredentialManager } from "../../components/credential-manager.js";
import { FormField, TextField } from "../../components/field.js";
import { RowButton } from "../../components/row-button.js";
import { Screen } from "../../components/screen.js";
import { useOptionalList } from "../../components/use-optional-list.js";

const loadKeys = async () => (await api.playbackKeys.list()).access_tokens;

/** Playback keys (`/v1/admin/access-tokens`): path keys for players, shown once at creation. */
export function PlaybackKeysScreen() {
  const channels = useOptionalList(async () => (await api.channels.list()).channels);
  const [scope, setScope] = useState<string[]>([]);
  const [maxConnections, setMaxConnections] = useState("");
  const [xtreamUsername, setXtreamUsername] = useState("");
  return (
    <Screen titleId="keys-title" title="Playback keys">
      <p class="muted">
        A playback key goes into player URLs (<code>/p/&lt;key&gt;/playlist.m3u</code>). It grants
        playback only, never admin access.
      </p>
      <CredentialManager<PlaybackKey>
        noun={{ field: "Key", name: "playback key" }}
        empty="No playback key yet."
        load={loadKeys}
        create={async (base) => {
          const r = await api.playbackKeys.create({
            ...base,
            channel_ids: scope,
            // Empty: unlimited; anything else the API checks (1..10000).
            max_connections: maxConnections.trim() === "" ? null : Number(maxConnections),
            ...(xtreamUsername === "" ? {} : { xtream_username: xtreamUsername }),
          });
          const server = new URL(r.playlist_url).origin;
          const xtream =
            r.xtream_password === undefined || r.xtream_username === undefined
              ? undefined
              : xtreamLogin(server, r.xtream_username, r.xtream_password);
          return {
            title: `New playback key "${r.name}"`,
            secret: r.token,
            warning: r.warning || "Copy the key now: it is never shown again.",
            extra: { label: "Playlist URL", value: r.playlist_url },
            ...(xtream === undefined && r.hdhomerun_url === undefined
              ? {}
              : {
                  more: [
                    ...(r.hdhomerun_url === undefined
                      ? []
                      : [{ label: "HDHomeRun tuner URL", value: r.hdhomerun_url }]),
                    ...(xtream?.more ?? []),
                  ],
                }),
            qr: [{ label: "Playlist URL", value: r.playlist_url }, ...(xtream?.qr ?? [])],
          };
        }}
        rowActions={(k, ctx) =>
          k.xtream_username === null ? null : (
            <RowButton
              label="New Xtream password"
              of={`for ${k.name}`}
              disabled={k.revoked_at !== null}
              onClick={() =>
                void ctx.action.run(async () => {
                  const r = await api.playbackKeys.xtreamPassword(k.id, k.revision);
                  const login = xtreamLogin(location.origin, r.xtream_username, r.xtream_password);
                  ctx.showSecret({
                    title: `New Xtream password for "${k.name}"`,
                    secret: r.xtream_password,
                    warning: `${r.warning} The old password stops working now.`,
                    // The password is the secret shown above; server and username beside it.
                    more: login.more.filter((m) => m.value !== r.xtream_password),
                    qr: login.qr,
                  });
                  await ctx.reload();
                }, `New Xtream password for "${k.name}".`)
              }
            />
          )
        }
        onCreated={() => {
          setScope([]);
          setMaxConnections("");
          setXtreamUsername("");
        }}
        createFields={
          <>
            <TextField
              label="Max connections (empty: unlimited)"
              type="number"
              value={maxConnections}
              onInput={setMaxConnections}
              hint="Streams at once under this key: stream.ts, HDHomeRun tuners, HLS viewers (1-10000)."
            />
            <TextField
              label="Xtream username (optional)"
              value={xtreamUsername}
              onInput={setXtreamUsername}
              hint="IPTV apps (TiviMate, IPTV Smarters, Kodi) log in with it and a password shown once (extensions.xtream)."
            />
            <FormField
              label="Channels (none selected: all channels)"
              control={(aria) => (
                <select
                  {...aria}
                  multiple
                  size={Math.min(6, Math.max(2, channels.length))}
                  onChange={(e) =>
                    setScope(
                      [...(e.currentTarget as HTMLSelectElement).selectedOptions].map(
                        (o) => o.value,
                      ),
                    )
                  }
                >
                  {channels.map((c) => (
                    <option key={c.id} value={c.id} selected={scope.includes(c.id)}>
                      {c.title} ({c.id})
                    </option>
                  ))}
                </select>
              )}
            />
          </>
        }
        columns={[
          {
            header: "Scope",
            cell: (k) => (k.scope.all ? "all channels" : k.scope.channel_ids.join(", ")),
          },
          {
            header: "Xtream",
            cell: (k) => k.xtream_username ?? "—",
          },
          {
            header: "Streams",
            cell: (k) =>
              k.max_connections === null
                ? `${k.active_cons} (unlimited)`
                : `${k.active_cons} / ${k.max_connections}`,
          },
        ]}
        revoke={(k) => api.playbackKeys.revoke(k.id, k.revision)}
        remove={(k) => api.playbackKeys.remove(k.id, k.revision)}
        confirmText={(_kind, k) => `Players using "${k.name}" get 401 from now on.`}
      />
    </Screen>
  );
}

/**
 * Extensions "Xtream Codes output": what an IPTV app asks for (docs/xtream.md "Connect a
 * device"): server, username and password to type or copy, and the `get.php` playlist URL
 * as a QR code for apps that take an M3U URL.
 */
function xtreamLogin(server: string, username: string, password: string) {
  const query = new URLSearchParams({ username, password, type: "m3u_plus", output: "ts" });
  return {
    more: [
      { label: "Xtream server URL", value: server },
      { label: "Xtream username", value: username },
      { label: "Xtream password", value: password },
    ],
    qr: [{ label: "Xtream playlist URL", value: `${server}/get.php?${query}` }],
  };
}
