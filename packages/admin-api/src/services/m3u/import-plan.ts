import { type FallbackSource, resolveChannelSource } from "@svc/core/catalog";
import { carrySecrets, sourceOrigin } from "@svc/core/egress";
import { GatewayError } from "@svc/core/errors";
import { runInSlices, runToEnd } from "@svc/core/time-slices";
import type { StoredChannel } from "../../storage/channels/stored-channel.js";
import type { ChannelStore } from "../channels/channel-store.js";
import { createGuideNumberOwners } from "../channels/guide-number-owners.js";
import {
  type DuplicateRole,
  type DuplicatesMode,
  groupDuplicates,
  replacedFallbacks,
} from "./duplicate-fallbacks.js";
import { type ImportedFields, readEntry } from "./import-entry.js";
import { m3uSteps } from "./m3u-parser.js";
import { createUniqueIds } from "./unique-ids.js";

/** `fallback`: the entry is a fallback source of its `tvg-id`'s channel (`duplicates: "fallbacks"`). */
export type ImportAction = "create" | "update" | "skip" | "fallback";

export interface PlannedEntry {
  readonly line: number;
  readonly action: ImportAction;
  readonly id: string | null;
  readonly title: string;
  /** The source URL without credentials, query or fragment. */
  readonly url: string;
  readonly ingress?: string;
  /** The entry's `tvg-chno` as the channel's `guide_number`, when it gets it. */
  readonly guide_number?: string;
  /** The channel that already has the entry's `tvg-chno`: the entry's channel does not get it. */
  readonly guide_number_taken_by?: string;
  readonly reason?: string;
  /** Catch-up attributes the channel object has no field for, reported as read. */
  readonly kept?: Record<string, string>;
  /** Revision of the channel an update would change (send it back in `revisions`). */
  readonly revision?: number;
  /**
   * An update that moves the source to another origin: the stored secrets it leaves behind
   * (`headers.<name>`, `keys.<KID>`), present only when there are some (issue 30 item 2).
   */
  readonly dropped_secrets?: readonly string[];
  /** `duplicates: "fallbacks"`, a `fallback` entry: its index in the channel's `fallback_sources`. */
  readonly fallback_index?: number;
  /** `duplicates: "fallbacks"`, a channel's entry with a `tvg-id`: how many fallback sources it gets. */
  readonly fallbacks?: number;
}

export interface ImportPlan {
  readonly duplicates: DuplicatesMode;
  readonly tvgUrl: string;
  readonly entries: readonly PlannedEntry[];
  readonly put: readonly StoredChannel[];
  readonly revisions: Readonly<Record<string, number>>;
  /** Entries per action. */
  readonly counts: Readonly<Record<ImportAction, number>>;
}

/**
 * Matches every entry with the catalog: a channel with the same source URL is updated, else
 * the one whose id the entry derives (`tvg-id`, else the title, made a valid id), else a
 * channel is created. An entry identical to its channel, a repeated URL and an unusable
 * entry are skipped with the reason. Nothing is written here.
 */
export function planImport(
  content: string | Iterable<string>,
  store: ChannelStore,
  duplicates: DuplicatesMode = "channels",
): ImportPlan {
  return runToEnd(planSteps(content, store, duplicates));
}

/**
 * {@link planImport} in slices: a 32 MiB playlist never holds the event loop (issue 30 item 1).
 * `content` may be the pieces the body was decoded in: they are read line by line, never joined.
 */
export function planImportInSlices(
  content: string | Iterable<string>,
  store: ChannelStore,
  duplicates: DuplicatesMode = "channels",
): Promise<ImportPlan> {
  return runInSlices(planSteps(content, store, duplicates));
}

function* planSteps(
  content: string | Iterable<string>,
  store: ChannelStore,
  duplicates: DuplicatesMode,
): Generator<void, ImportPlan> {
  const parsed = yield* m3uSteps(content);
  if (!parsed.ok) throw new GatewayError("invalid_request", parsed.message);
  const roles: ReadonlyMap<number, DuplicateRole> =
    duplicates === "fallbacks" ? yield* groupDuplicates(parsed.value.entries) : new Map();
  /** The channel each group's primary entry went to, by the primary's line. */
  const groupChannel = new Map<number, string>();
  const bySource = new Map<string, StoredChannel>();
  const numbers = createGuideNumberOwners();
  let nextSort = 0;
  let seen = 0;
  for (const c of store.list()) {
    if (c.source_url !== "") bySource.set(c.source_url, c);
    numbers.add(c);
    nextSort = Math.max(nextSort, c.sort_order + 1);
    if (++seen % 1024 === 0) yield;
  }
  const ids = createUniqueIds((id) => store.get(id) !== undefined);
  const seenUrls = new Map<string, number>();
  const entries: PlannedEntry[] = [];
  const put: StoredChannel[] = [];
  const revisions: Record<string, number> = {};
  const counts = { create: 0, update: 0, skip: 0, fallback: 0 };
  const add = (e: PlannedEntry) => {
    entries.push(e);
    counts[e.action]++;
  };
  const now = Date.now();
  // Problems and entries both come in line order: merged, not sorted afterwards.
  const { problems } = parsed.value;
  let p = 0;
  const problemsBefore = (line: number) => {
    for (; p < problems.length && problems[p]!.line < line; p++)
      add({
        line: problems[p]!.line,
        action: "skip",
        id: null,
        title: "",
        url: "",
        reason: problems[p]!.reason,
      });
  };
  for (const entry of parsed.value.entries) {
    if (entries.length % 64 === 0) yield;
    problemsBefore(entry.line);
    const read = readEntry(entry);
    if (!read.ok) {
      add({
        line: entry.line,
        action: "skip",
        id: null,
        title: entry.title,
        url: reportUrl(entry.url),
        reason: read.reason,
      });
      continue;
    }
    const stated = read.fields;
    const kept = Object.keys(read.kept).length > 0 ? { kept: read.kept } : {};
    const earlier = seenUrls.get(stated.source_url);
    if (earlier !== undefined) {
      add({
        // The URL's channel is the earlier entry's: this one gives it no number.
        ...entryBase(entry.line, { ...stated, guide_number: "" }, kept),
        action: "skip",
        id: null,
        reason: `duplicate of line ${earlier}`,
      });
      continue;
    }
    seenUrls.set(stated.source_url, entry.line);
    const role = roles.get(entry.line);
    if (role !== undefined && role.kind !== "primary") {
      // A later entry of a tvg-id: part of the channel its first entry went to.
      const base = entryBase(entry.line, { ...stated, guide_number: "" }, kept);
      const id = groupChannel.get(role.primaryLine) ?? null;
      add(
        role.kind === "fallback"
          ? { ...base, action: "fallback", id, fallback_index: role.index }
          : { ...base, action: "skip", id, reason: role.reason },
      );
      continue;
    }
    const fallbacks = role?.sources;
    const group = fallbacks === undefined ? {} : { fallbacks: fallbacks.length };
    const existing =
      bySource.get(stated.source_url) ?? store.get(ids.peek(deriveId(stated, entry.line)));
    if (existing !== undefined && !ids.used(existing.id)) {
      ids.take(existing.id);
      const taken = numbers.holder(stated.guide_number, existing.id);
      const f = taken === undefined ? stated : { ...stated, guide_number: "" };
      const base = { ...entryBase(entry.line, f, kept, taken), ...group };
      const { channel: next, dropped } = updated(existing, f, store, now, fallbacks);
      groupChannel.set(entry.line, existing.id);
      if (sameChannel(existing, next)) {
        add({ ...base, action: "skip", id: existing.id, reason: "unchanged" });
        continue;
      }
      numbers.move(existing.id, existing.guide_number, next.guide_number);
      put.push(next);
      revisions[existing.id] = existing.revision;
      add({
        ...base,
        action: "update",
        id: existing.id,
        revision: existing.revision,
        ...(dropped.length > 0 ? { dropped_secrets: dropped } : {}),
      });
      continue;
    }
    const id = ids.fresh(deriveId(stated, entry.line));
    ids.take(id);
    const taken = numbers.holder(stated.guide_number, id);
    const f = taken === undefined ? stated : { ...stated, guide_number: "" };
    numbers.move(id, "", f.guide_number);
    groupChannel.set(entry.line, id);
    put.push(created(id, f, f.chno ?? nextSort++, now, fallbacks));
    add({ ...entryBase(entry.line, f, kept, taken), ...group, action: "create", id });
  }
  problemsBefore(Number.POSITIVE_INFINITY);
  return { duplicates, tvgUrl: parsed.value.tvgUrl, entries, put, revisions, counts };
}

/** What every entry of a usable line reports, the number it gives or could not give included. */
function entryBase(
  line: number,
  f: ImportedFields,
  kept: { kept?: Record<string, string> },
  numberTakenBy?: string,
) {
  return {
    line,
    title: f.title,
    url: reportUrl(f.source_url),
    ingress: f.ingress,
    ...(f.guide_number === "" ? {} : { guide_number: f.guide_number }),
    ...(numberTakenBy === undefined ? {} : { guide_number_taken_by: numberTakenBy }),
    ...kept,
  };
}

/**
 * Spec "Import and export": `apply: true` needs the revisions seen in the preview; a channel
 * changed (or created) since then gives 409 and nothing is written. The whole apply is one
 * transaction.
 */
export async function applyPlan(
  plan: ImportPlan,
  store: ChannelStore,
  seen: Readonly<Record<string, number>> | undefined,
): Promise<void> {
  for (const [id, revision] of Object.entries(plan.revisions)) {
    const wanted = seen?.[id];
    if (wanted === undefined)
      throw new GatewayError(
        "conflict",
        `revisions: channel "${id}" was not in the preview (or changed since)`,
      );
    if (wanted !== revision)
      throw new GatewayError(
        "conflict",
        `revision mismatch for "${id}": current revision is ${revision}`,
      );
  }
  if (plan.put.length > 0) await store.commit({ put: plan.put });
}

/** `tvg-id`, else the title, as a channel id (`[A-Za-z0-9._-]{1,64}`). */
export function deriveId(f: ImportedFields, line: number): string {
  const slug = (f.epg_id || f.title)
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^[-.]+|[-.]+$/g, "")
    .slice(0, 56);
  return slug === "" ? `ch-${line}` : slug;
}

export function created(
  id: string,
  f: ImportedFields,
  sortOrder: number,
  now: number,
  fallbacks: readonly FallbackSource[] = [],
): StoredChannel {
  return {
    id,
    title: f.title,
    group: f.group,
    logo_url: f.logo_url,
    epg_id: f.epg_id,
    epg_name: f.epg_name,
    epg_source: "",
    ingress: f.ingress,
    source_url: f.source_url,
    upstream: "",
    path: "",
    headers: f.headers,
    user_agent: f.user_agent,
    on_demand: true,
    autostart: false,
    disabled: false,
    prefer_height: null,
    preferred_audio_languages: [],
    sort_order: sortOrder,
    guide_number: f.guide_number,
    max_viewers: null,
    engine: "auto",
    keys: f.keys,
    fallback_sources: fallbacks,
    revision: 1,
    egress_mode: "auto",
    egress_profile_id: null,
    updated_at: now,
  };
}

/**
 * The fields the entry states replace the channel's; what it does not state is kept, except
 * the stored secrets when the entry moves the source to another origin (issue 30 item 2: an
 * entry matched by its `tvg-id` or title could otherwise point a channel's `Authorization`
 * at any URL the playlist names). `fallbacks` (the entry's group, `duplicates: "fallbacks"`)
 * replace the channel's fallback sources under the same rule per index; without them the
 * channel keeps its own.
 */
export function updated(
  c: StoredChannel,
  f: ImportedFields,
  store: ChannelStore,
  now: number,
  fallbacks?: readonly FallbackSource[],
): { channel: StoredChannel; dropped: string[] } {
  const secrets = carrySecrets({
    from: sourceOrigin(resolveChannelSource(c, store)),
    to: sourceOrigin(f.source_url),
    stored: { headers: c.headers, keys: c.keys },
    written: { headers: f.headers, keys: f.keys },
    mode: "merge",
  });
  const sources =
    fallbacks === undefined
      ? { sources: c.fallback_sources, dropped: [] }
      : replacedFallbacks(store, c.fallback_sources, fallbacks);
  const channel: StoredChannel = {
    ...c,
    title: f.title,
    group: f.group || c.group,
    logo_url: f.logo_url || c.logo_url,
    epg_id: f.epg_id || c.epg_id,
    epg_name: f.epg_name || c.epg_name,
    ingress: f.ingress,
    source_url: f.source_url,
    upstream: "",
    path: "",
    user_agent: f.user_agent || c.user_agent,
    headers: secrets.headers,
    keys: secrets.keys,
    fallback_sources: sources.sources,
    sort_order: f.chno ?? c.sort_order,
    guide_number: f.guide_number || c.guide_number,
    revision: c.revision + 1,
    updated_at: now,
  };
  return { channel, dropped: [...secrets.dropped, ...sources.dropped].sort() };
}

export function sameChannel(a: StoredChannel, b: StoredChannel): boolean {
  const strip = (c: StoredChannel) =>
    JSON.stringify({
      ...c,
      // PostgreSQL's jsonb gives an object's keys back in its own order: compare field by field.
      fallback_sources: c.fallback_sources.map((f) => [
        f.source_url,
        f.upstream,
        f.path,
        f.headers,
        f.user_agent,
      ]),
      revision: 0,
      updated_at: 0,
    });
  return strip(a) === strip(b);
}

/** http(s): without credentials, query or fragment; another scheme: only its name; else "". */
function reportUrl(url: string): string {
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:"
      ? `${u.protocol}//${u.host}${u.pathname}`
      : u.protocol;
  } catch {
    return "";
  }
}
