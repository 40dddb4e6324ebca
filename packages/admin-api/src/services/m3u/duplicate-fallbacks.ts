import type { ChannelCatalog, FallbackSource } from "@svc/core/catalog";
import { MAX_FALLBACK_SOURCES } from "@svc/core/config";
import { carryFallbackSecrets } from "../channels/write.js";
import { type ImportedFields, readEntry } from "./import-entry.js";
import type { M3uEntry } from "./m3u-parser.js";

/**
 * The import's `duplicates` option (docs/m3u.md "Duplicates as fallback sources"):
 * `channels` (the default, the specification's import) makes every entry its own channel;
 * `fallbacks` makes the entries that share one `tvg-id` one channel, the first in playlist
 * order its primary source and the later ones its `fallback_sources` (extensions "Fallback
 * sources and the slate").
 */
export type DuplicatesMode = "channels" | "fallbacks";

/** What an entry is in `fallbacks` mode; entries without a role are imported as usual. */
export type DuplicateRole =
  | {
      readonly kind: "primary";
      /** The later entries of its `tvg-id`, in playlist order (at most 8). */
      readonly sources: readonly FallbackSource[];
    }
  | { readonly kind: "fallback"; readonly primaryLine: number; readonly index: number }
  | { readonly kind: "extra"; readonly primaryLine: number; readonly reason: string };

interface Group {
  readonly line: number;
  readonly fields: ImportedFields;
  readonly sources: FallbackSource[];
}

/**
 * Groups the usable entries by `tvg-id`, before the plan walks them. The same entries are
 * left out as in the plan (unreadable ones, a URL seen earlier in the file), so a skipped
 * entry never becomes a group's primary. A later entry becomes a fallback source only when
 * the channel can play it: the same ingress (extensions: fallbacks are "tried in order after
 * the primary source (same `ingress`)") and the same ClearKey keys (a source has no keys of
 * its own); past {@link MAX_FALLBACK_SOURCES}, or otherwise unfit, it is reported and
 * skipped. Entries without a `tvg-id` get no role.
 */
export function* groupDuplicates(
  entries: readonly M3uEntry[],
): Generator<void, Map<number, DuplicateRole>> {
  const roles = new Map<number, DuplicateRole>();
  const groups = new Map<string, Group>();
  const seenUrls = new Set<string>();
  for (const [n, entry] of entries.entries()) {
    if (n % 64 === 0) yield;
    const read = readEntry(entry);
    if (!read.ok || seenUrls.has(read.fields.source_url)) continue;
    const f = read.fields;
    seenUrls.add(f.source_url);
    if (f.epg_id === "") continue;
    const group = groups.get(f.epg_id);
    if (group === undefined) {
      const sources: FallbackSource[] = [];
      groups.set(f.epg_id, { line: entry.line, fields: f, sources });
      roles.set(entry.line, { kind: "primary", sources });
      continue;
    }
    const unfit = unfitReason(group, f);
    if (unfit !== undefined) {
      roles.set(entry.line, { kind: "extra", primaryLine: group.line, reason: unfit });
      continue;
    }
    roles.set(entry.line, {
      kind: "fallback",
      primaryLine: group.line,
      index: group.sources.length,
    });
    group.sources.push({
      source_url: f.source_url,
      upstream: "",
      path: "",
      headers: f.headers,
      user_agent: f.user_agent,
    });
  }
  return roles;
}

function unfitReason(group: Group, f: ImportedFields): string | undefined {
  const first = `tvg-id "${f.epg_id}" (line ${group.line})`;
  if (group.sources.length >= MAX_FALLBACK_SOURCES)
    return `more than ${MAX_FALLBACK_SOURCES} fallback sources for ${first}`;
  if (f.ingress !== group.fields.ingress)
    return `ingress ${f.ingress} differs from ${group.fields.ingress} of ${first}`;
  if (keysOf(f) !== keysOf(group.fields)) return `ClearKey keys differ from those of ${first}`;
  return undefined;
}

const keysOf = (f: ImportedFields) => JSON.stringify(Object.entries(f.keys).sort());

/**
 * A channel's fallback sources replaced by an entry's group, under the rule the import uses
 * for the primary source (issue 30 item 2), per index: headers the entry states replace the
 * stored ones and the rest are kept, but a stored secret only while the source at that index
 * stays on its origin; `dropped` names the others (`fallback_sources[1].headers.Cookie`).
 * A blank user agent keeps the stored one, as for the primary.
 */
export function replacedFallbacks(
  catalog: Pick<ChannelCatalog, "upstream">,
  stored: readonly FallbackSource[],
  written: readonly FallbackSource[],
): { sources: FallbackSource[]; dropped: string[] } {
  const carried = carryFallbackSecrets(catalog, stored, written, "merge");
  const sources = carried.sources.map((s, i) => ({
    ...s,
    user_agent: s.user_agent || (stored[i]?.user_agent ?? ""),
  }));
  return { sources, dropped: carried.dropped };
}
