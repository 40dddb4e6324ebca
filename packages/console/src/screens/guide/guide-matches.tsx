import { useCallback, useEffect, useState } from "preact/hooks";
import { api } from "../../api/client.js";
import type { GuideCandidate, GuideMatch } from "../../api/wire.js";
import { type Column, DataTable } from "../../components/data-table.js";
import { ActionNotice } from "../../components/notice.js";
import { useAction } from "../../components/use-action.js";
import { rewriteOf } from "../channels/channel-draft.js";

function label(c: GuideCandidate | null | undefined): string {
  if (!c) return "—";
  return [c.name, c.id, c.source].filter((x) => typeof x === "string" && x !== "").join(" · ");
}

/**
 * Channel ↔ guide matches. Picking a candidate writes its id into the channel's
 * `epg_id` (and its source into `epg_source`) through the channel PUT.
 */
export function GuideMatches() {
  const [matches, setMatches] = useState<GuideMatch[]>([]);
  const action = useAction();
  const reload = useCallback(async () => setMatches((await api.guide.matches()).matches), []);
  useEffect(() => {
    void action.run(reload);
  }, [reload]);
  const pick = (m: GuideMatch, index: number) =>
    action.run(async () => {
      const c = m.candidates[index];
      if (!c) return;
      const detail = await api.channels.get(m.channel_id);
      await api.channels.replace(
        m.channel_id,
        rewriteOf(detail.channel, {
          epg_id: String(c.id ?? ""),
          ...(typeof c.source === "string" ? { epg_source: c.source } : {}),
        }),
        detail.revision,
      );
      await reload();
    }, `Guide entry set for ${m.channel_id}.`);
  const columns: Column<GuideMatch>[] = [
    { header: "Channel", cell: (m) => m.channel_id },
    { header: "Status", cell: (m) => m.status },
    { header: "Current match", cell: (m) => label(m.match) },
    {
      header: "Pick a candidate",
      cell: (m) =>
        m.candidates.length === 0 ? (
          "—"
        ) : (
          <select
            aria-label={`Guide candidate for ${m.channel_id}`}
            onChange={(e) => {
              const v = (e.currentTarget as HTMLSelectElement).value;
              if (v !== "") void pick(m, Number(v));
            }}
          >
            <option value="">choose…</option>
            {m.candidates.map((c, i) => (
              <option key={i} value={String(i)}>
                {label(c)}
              </option>
            ))}
          </select>
        ),
    },
  ];
  return (
    <section aria-labelledby="matches-title">
      <h2 id="matches-title">Channel matches</h2>
      <ActionNotice action={action} />
      <DataTable
        columns={columns}
        rows={matches}
        rowKey={(m) => m.channel_id}
        empty="No match information yet."
      />
    </section>
  );
}
