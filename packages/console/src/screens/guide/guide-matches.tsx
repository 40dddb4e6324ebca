import { useCallback, useState } from "preact/hooks";
import { api } from "../../api/client.js";
import type { GuideCandidate, GuideMatch, GuideMatchReason } from "../../api/wire.js";
import { type Column, DataTable } from "../../components/data-table.js";
import { ActionNotice } from "../../components/notice.js";
import { useAction, useAutoLoad } from "../../components/use-action.js";
import { rewriteOf } from "../channels/channel-draft.js";

const REASONS: Record<GuideMatchReason, string> = {
  exact_id: "exact id",
  exact_name: "exact name",
  lcn: "channel number",
  id_name: "id as name",
  fuzzy: "fuzzy",
};

/** "exact name", or "fuzzy 0.93": why a guide channel was matched or offered. */
function why(c: { reason: GuideMatchReason; score: number }): string {
  const label = REASONS[c.reason] ?? c.reason;
  return c.reason === "fuzzy" ? `${label} ${c.score.toFixed(2)}` : label;
}

const label = (c: { display_name: string; epg_id: string; source_id: string }) =>
  [c.display_name, c.epg_id, c.source_id].filter((x) => x !== "").join(" · ");

/**
 * Channel ↔ guide matches, with why each was made. "Use" on a candidate writes
 * its id into the channel's `epg_id` (and its source into `epg_source`)
 * through the channel PUT: one click, an operator match from then on.
 */
export function GuideMatches() {
  const [matches, setMatches] = useState<GuideMatch[]>([]);
  const action = useAction();
  const reload = useCallback(async () => setMatches((await api.guide.matches()).matches), []);
  useAutoLoad(action, reload);
  const accept = (m: GuideMatch, c: GuideCandidate) =>
    action.run(async () => {
      const detail = await api.channels.get(m.channel_id);
      await api.channels.replace(
        m.channel_id,
        rewriteOf(detail.channel, { epg_id: c.epg_id, epg_source: c.source_id }),
        detail.revision,
      );
      await reload();
    }, `Guide entry ${c.epg_id} set for ${m.channel_id}.`);
  const isCurrent = (m: GuideMatch, c: GuideCandidate) =>
    m.match !== undefined && m.match.epg_id === c.epg_id && m.match.source_id === c.source_id;
  const columns: Column<GuideMatch>[] = [
    { header: "Channel", cell: (m) => m.channel_id },
    { header: "Status", cell: (m) => m.status },
    { header: "Current match", class: "wrap", cell: (m) => (m.match ? label(m.match) : "—") },
    {
      header: "Why",
      cell: (m) => (m.match ? `${why(m.match)}${m.match.manual ? " (set by operator)" : ""}` : "—"),
    },
    {
      header: "Candidates",
      cell: (m) =>
        m.candidates.length === 0 ? (
          "—"
        ) : (
          <ul class="plain-list">
            {m.candidates.map((c) => (
              <li key={`${c.source_id}\u0000${c.epg_id}`}>
                <span class="wrap">{label(c)}</span> <small>({why(c)})</small>{" "}
                {isCurrent(m, c) && m.match?.manual ? (
                  <small>in use</small>
                ) : (
                  <button
                    type="button"
                    class="btn btn-small"
                    aria-label={`Use ${c.display_name} (${c.epg_id}) for ${m.channel_id}`}
                    onClick={() => void accept(m, c)}
                  >
                    Use
                  </button>
                )}
              </li>
            ))}
          </ul>
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
        rowProps={(m) => ({ "data-testid": `match-${m.channel_id}` })}
        empty="No match information yet."
      />
    </section>
  );
}
