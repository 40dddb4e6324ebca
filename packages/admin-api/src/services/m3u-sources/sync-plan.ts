import { GatewayError } from "@svc/core/errors";
import type { M3uSynced } from "../../db/tables/m3u-synced.js";
import type { StoredChannel } from "../../storage/channels/stored-channel.js";
import type { ChannelStore } from "../channels/channel-store.js";
import { createGuideNumberOwners } from "../channels/guide-number-owners.js";
import { type ImportedFields, readEntry } from "../m3u/import-entry.js";
import { created, deriveId, sameChannel, updated } from "../m3u/import-plan.js";
import { m3uSteps } from "../m3u/m3u-parser.js";
import { createUniqueIds } from "../m3u/unique-ids.js";

/** What a sync of one source writes, and its counts (the status of extensions.md). */
export interface SyncPlan {
  readonly put: readonly StoredChannel[];
  readonly remove: readonly string[];
  readonly created: number;
  readonly updated: number;
  /** Vanished entries: disabled, or deleted with `remove_missing`. */
  readonly disabled: number;
  /** Entries not applied: unusable, outside the group filter, repeated URL, unchanged. */
  readonly skipped: number;
  /** Usable entries inside the group filter (created, updated or unchanged). */
  readonly listed: number;
}

export interface SyncSource {
  readonly id: string;
  /** Group names kept (exact match); empty keeps every group. */
  readonly groupFilter: readonly string[];
  readonly removeMissing: boolean;
}

/** The operator-editable fields a sync tells apart (docs/m3u-sources.md "Operator edits"). */
const KEPT = [
  "title",
  "group",
  "epg_id",
  "epg_name",
  "sort_order",
  "guide_number",
  "disabled",
] as const;

/**
 * What the last sync wrote (a channel never synced: its own values), always in this key
 * order: PostgreSQL's `jsonb` hands objects back with their keys reordered.
 */
function syncedOf(c: StoredChannel): Required<M3uSynced> {
  const s = c.m3u_synced ?? c;
  return {
    title: s.title,
    group: s.group,
    epg_id: s.epg_id,
    epg_name: s.epg_name,
    sort_order: s.sort_order,
    guide_number: s.guide_number ?? "",
    disabled: s.disabled,
  };
}

/**
 * Plans the sync of a provider playlist onto the channels `source` owns, with the M3U import's
 * parser and entry reading (docs/m3u.md): an entry is matched with an owned channel by source
 * URL, else by `tvg-id`, else by the title the last sync wrote when the entry or the channel has
 * no `tvg-id` (a provider rotating its URLs or renaming a channel keeps the channel); a matched channel takes the entry's fields except those
 * an operator edited since the last sync; an entry without a match creates a channel owned by
 * the source; an owned channel without an entry is disabled (deleted with `remove_missing`).
 * A source adopts no channel it did not create. Nothing is written here.
 */
export function* syncSteps(
  content: Iterable<string>,
  source: SyncSource,
  store: ChannelStore,
): Generator<void, SyncPlan> {
  const parsed = yield* m3uSteps(content);
  if (!parsed.ok) throw new GatewayError("invalid_request", parsed.message);
  const byUrl = new Map<string, StoredChannel>();
  const byEpgId = new Map<string, StoredChannel>();
  const byTitle = new Map<string, StoredChannel>();
  const owned: StoredChannel[] = [];
  // A provider's duplicate `tvg-chno` costs that entry its number, not the sync (409).
  const numbers = createGuideNumberOwners();
  let nextSort = 0;
  let seen = 0;
  for (const c of store.list()) {
    nextSort = Math.max(nextSort, c.sort_order + 1);
    numbers.add(c);
    if (++seen % 1024 === 0) yield;
    if (c.m3u_source !== source.id) continue;
    owned.push(c);
    const synced = syncedOf(c);
    if (c.source_url !== "" && !byUrl.has(c.source_url)) byUrl.set(c.source_url, c);
    if (synced.epg_id !== "" && !byEpgId.has(synced.epg_id)) byEpgId.set(synced.epg_id, c);
    if (!byTitle.has(synced.title)) byTitle.set(synced.title, c);
  }
  const ids = createUniqueIds((id) => store.get(id) !== undefined);
  const filter = new Set(source.groupFilter);
  const matched = new Set<string>();
  const seenUrls = new Set<string>();
  const put: StoredChannel[] = [];
  const remove: string[] = [];
  const counts = { created: 0, updated: 0, disabled: 0, skipped: parsed.value.problems.length };
  let listed = 0;
  const now = Date.now();
  const numbered = (f: ImportedFields, id: string): ImportedFields =>
    numbers.holder(f.guide_number, id) === undefined ? f : { ...f, guide_number: "" };
  const free = (c: StoredChannel | undefined) =>
    c !== undefined && !matched.has(c.id) ? c : undefined;
  for (const entry of parsed.value.entries) {
    if ((counts.created + counts.updated + counts.skipped) % 64 === 0) yield;
    const read = readEntry(entry);
    if (!read.ok || (filter.size > 0 && !filter.has(read.fields.group))) {
      counts.skipped++;
      continue;
    }
    const f = read.fields;
    if (seenUrls.has(f.source_url)) {
      counts.skipped++;
      continue;
    }
    seenUrls.add(f.source_url);
    listed++;
    // By title only where a `tvg-id` cannot tell them apart: two entries of one title with
    // different ids (one name in several groups) are never taken for each other.
    const named = free(byTitle.get(f.title));
    const existing =
      free(byUrl.get(f.source_url)) ??
      (f.epg_id === "" ? undefined : free(byEpgId.get(f.epg_id))) ??
      (named !== undefined && (f.epg_id === "" || syncedOf(named).epg_id === "")
        ? named
        : undefined);
    if (existing !== undefined) {
      matched.add(existing.id);
      const next = synced(existing, numbered(f, existing.id), store, now, source.id);
      numbers.move(existing.id, existing.guide_number, next.guide_number);
      if (sameChannel({ ...existing, m3u_synced: syncedOf(existing) }, next)) counts.skipped++;
      else {
        put.push(next);
        counts.updated++;
      }
      continue;
    }
    const id = ids.fresh(deriveId(f, entry.line));
    ids.take(id);
    const channel = created(id, numbered(f, id), f.chno ?? nextSort++, now);
    numbers.move(id, "", channel.guide_number);
    put.push({ ...channel, m3u_source: source.id, m3u_synced: syncedOf(channel) });
    counts.created++;
  }
  for (const c of owned) {
    if (matched.has(c.id)) continue;
    if (source.removeMissing) {
      remove.push(c.id);
      counts.disabled++;
      continue;
    }
    const before = syncedOf(c);
    // Disabled as vanished already (whatever the operator did since), or by the operator.
    if (before.disabled || c.disabled) continue;
    put.push({
      ...c,
      disabled: true,
      m3u_synced: { ...before, disabled: true },
      revision: c.revision + 1,
      updated_at: now,
    });
    counts.disabled++;
  }
  return { put, remove, ...counts, listed };
}

/**
 * The import's update of `c` by the entry, then every operator-editable field the operator
 * changed since the last sync (it differs from what that sync wrote) put back.
 */
function synced(
  c: StoredChannel,
  f: ImportedFields,
  store: ChannelStore,
  now: number,
  sourceId: string,
): StoredChannel {
  const before = syncedOf(c);
  const wanted: M3uSynced = {
    title: f.title,
    group: f.group,
    epg_id: f.epg_id,
    epg_name: f.epg_name,
    sort_order: f.chno ?? before.sort_order,
    guide_number: f.guide_number || before.guide_number,
    disabled: false,
  };
  const next: Record<string, unknown> = {
    ...updated(c, f, store, now).channel,
    m3u_source: sourceId,
    m3u_synced: wanted,
  };
  for (const k of KEPT) next[k] = c[k] !== before[k] ? c[k] : wanted[k];
  return next as unknown as StoredChannel;
}
