import { useCallback, useMemo, useState } from "preact/hooks";
import { isConflict, messageOf } from "../../api/api-error.js";
import { api } from "../../api/client.js";
import type { BulkAnswer, Channel } from "../../api/wire.js";
import { ActionButton } from "../../components/action-button.js";
import { type Choice, choicesOf } from "../../components/choices.js";
import { ConfirmDelete } from "../../components/confirm-dialog.js";
import { SelectField, TextField } from "../../components/field.js";
import { ActionNotice } from "../../components/notice.js";
import { Screen } from "../../components/screen.js";
import { thenReload, useAction, useAutoLoad } from "../../components/use-action.js";
import { useOptionalList } from "../../components/use-optional-list.js";
import { rewriteOf } from "./channel-draft.js";
import { ChannelForm } from "./channel-form.js";
import { ChannelList } from "./channel-list.js";
import { ChannelTools } from "./channel-tools.js";

/** Rows rendered at once; "Show more" adds as many (keeps 1,000 channels fast). */
const PAGE = 100;

/** The state filter's choices. */
const STATES: readonly Choice[] = [
  { value: "all", label: "All" },
  { value: "enabled", label: "Enabled" },
  { value: "disabled", label: "Disabled" },
];

/** The catalog: search, filters, bulk switches, reorder, and the editor of one channel. */
export function ChannelsScreen() {
  const [channels, setChannels] = useState<Channel[] | null>(null);
  const upstreams = useOptionalList(async () => (await api.upstreams()).upstreams);
  const [query, setQuery] = useState("");
  const [group, setGroup] = useState("");
  const [state, setState] = useState("all");
  const [limit, setLimit] = useState(PAGE);
  const [selected, setSelected] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [toDelete, setToDelete] = useState<Channel | null>(null);
  const action = useAction();

  const reload = useCallback(async () => {
    const r = await api.channels.list();
    setChannels(r.channels);
  }, []);

  useAutoLoad(action, reload);

  const groups = useMemo(
    () => [...new Set((channels ?? []).map((c) => c.group).filter((g) => g !== ""))].sort(),
    [channels],
  );
  const matching = useMemo(() => {
    const q = query.trim().toLowerCase();
    return (channels ?? []).filter(
      (c) =>
        (q === "" || c.title.toLowerCase().includes(q) || c.id.toLowerCase().includes(q)) &&
        (group === "" || c.group === group) &&
        (state === "all" || (state === "disabled") === c.disabled),
    );
  }, [channels, query, group, state]);

  const all = channels ?? [];
  const current = all.find((c) => c.id === selected) ?? null;

  const move = (id: string, to: number) => {
    const from = all.findIndex((c) => c.id === id);
    if (from < 0 || to < 0 || to >= all.length) return;
    const next = [...all];
    const [moved] = next.splice(from, 1);
    next.splice(to, 0, moved!);
    const revisions = Object.fromEntries(all.map((c) => [c.id, c.revision]));
    setChannels(next);
    void action.run(
      async () => {
        try {
          await api.channels.reorder(
            next.map((c) => c.id),
            revisions,
          );
        } finally {
          await reload();
        }
      },
      `Moved ${moved!.title} to position ${to + 1}.`,
    );
  };

  const toggle = (c: Channel) =>
    action.run(
      async () => {
        try {
          await api.channels.replace(c.id, rewriteOf(c, { disabled: !c.disabled }), c.revision);
        } catch (err) {
          if (isConflict(err)) {
            await reload();
            throw new Error(
              `${c.title} changed meanwhile (${messageOf(err)}); the list is reloaded, try again.`,
            );
          }
          throw err;
        }
        await reload();
      },
      `${c.title} ${c.disabled ? "enabled" : "disabled"}.`,
    );

  return (
    <Screen titleId="channels-title" title="Channels">
      <div class="toolbar">
        <TextField
          label="Search"
          type="search"
          value={query}
          onInput={(v) => {
            setQuery(v);
            setLimit(PAGE);
          }}
          placeholder="Title or ID"
        />
        <SelectField
          label="Group"
          value={group}
          onChange={setGroup}
          options={choicesOf([{ value: "", label: "All groups" }], groups, (g) => ({
            value: g,
            label: g,
          }))}
        />
        <SelectField label="State" value={state} onChange={setState} options={STATES} />
        <div class="toolbar-actions">
          <button
            type="button"
            class="btn btn-primary"
            onClick={() => {
              setSelected(null);
              setCreating(true);
            }}
          >
            New channel
          </button>
          {([true, false] as const).map((on) => (
            <ActionButton<BulkAnswer>
              key={String(on)}
              action={action}
              run={thenReload(() => api.channels.setAll(on), reload)}
              done={(r) => `${on ? "Enabled" : "Disabled"} ${r.changed} channel(s).`}
            >
              {on ? "Enable all" : "Disable all"}
            </ActionButton>
          ))}
        </div>
      </div>
      <ActionNotice action={action} />
      {creating || selected !== null ? (
        <div class="editor">
          <ChannelForm
            id={creating ? null : selected}
            upstreams={upstreams}
            onSaved={(id) => {
              setCreating(false);
              setSelected(id);
              void reload();
            }}
            onCancel={() => {
              setCreating(false);
              setSelected(null);
            }}
          />
          {current && !creating ? <ChannelTools channel={current} /> : null}
        </div>
      ) : null}
      {channels === null ? null : (
        <>
          <p class="muted" role="status" data-testid="channel-count">
            {matching.length} of {all.length} channel(s)
            {matching.length > limit ? `, showing the first ${limit}` : ""}. Drag rows or use the
            arrows to reorder.
          </p>
          <ChannelList
            rows={matching.slice(0, limit)}
            all={all}
            selected={selected}
            busy={action.busy}
            onOpen={(id) => {
              setCreating(false);
              setSelected(id);
              scrollTo({ top: 0 });
            }}
            onToggle={(c) => void toggle(c)}
            onDelete={setToDelete}
            onMove={move}
          />
          {matching.length > limit ? (
            <button type="button" class="btn" onClick={() => setLimit((n) => n + PAGE)}>
              Show {Math.min(PAGE, matching.length - limit)} more
            </button>
          ) : null}
        </>
      )}
      <ConfirmDelete
        noun="channel"
        target={toDelete}
        onClose={() => setToDelete(null)}
        onDelete={(c) =>
          void action.run(async () => {
            await api.channels.remove(c.id, c.revision);
            if (selected === c.id) setSelected(null);
            await reload();
          }, `${c.title} deleted.`)
        }
      >
        {(c) => (
          <p>
            Delete the channel <strong>{c.title}</strong> ({c.id})? Players lose it at once.
          </p>
        )}
      </ConfirmDelete>
    </Screen>
  );
}
