import { ApiError } from "../../api/api-error.js";
import type {
  ChannelDetail,
  ChannelWrite,
  EgressMode,
  FallbackSourceWire,
} from "../../api/wire.js";

/** One header row of the editor; `secretSet` marks a value the API blanked (stored, not shown). */
export interface HeaderRow {
  name: string;
  value: string;
  secretSet: boolean;
}

/** One fallback source of the editor (extensions "Fallback sources and the slate"). */
export interface FallbackDraft {
  source_url: string;
  upstream: string;
  path: string;
  headers: HeaderRow[];
  user_agent: string;
}

/** The form's state: strings as typed, converted to the write body on save. */
export interface ChannelDraft {
  id: string;
  title: string;
  group: string;
  logo_url: string;
  epg_id: string;
  epg_name: string;
  epg_source: string;
  ingress: "hls" | "dash" | "ts";
  source_url: string;
  upstream: string;
  path: string;
  user_agent: string;
  on_demand: boolean;
  autostart: boolean;
  disabled: boolean;
  prefer_height: string;
  preferred_audio_languages: string;
  sort_order: string;
  guide_number: string;
  max_viewers: string;
  engine: "auto" | "native" | "ffmpeg";
  headers: HeaderRow[];
  /** ClearKey keys as the API returned them (values blank = stored, kept on write). */
  keys: Record<string, string>;
  egress_mode: EgressMode;
  egress_profile_id: string;
  /** Tried in order after the primary source; at most {@link MAX_FALLBACK_SOURCES}. */
  fallback_sources: FallbackDraft[];
}

/** The API's limit on `fallback_sources` (extensions "Fallback sources and the slate"). */
export const MAX_FALLBACK_SOURCES = 8;

export const EMPTY_FALLBACK: FallbackDraft = {
  source_url: "",
  upstream: "",
  path: "",
  headers: [],
  user_agent: "",
};

/** Header rows of a stored map: a blank value is a stored secret the API does not show. */
function headerRowsOf(headers: Record<string, string>): HeaderRow[] {
  return Object.entries(headers).map(([name, value]) => ({ name, value, secretSet: value === "" }));
}

/** The write form of header rows: a blank value keeps the stored secret (spec "Channel"). */
function headersOf(rows: HeaderRow[]): Record<string, string> {
  return Object.fromEntries(
    rows.filter((h) => h.name.trim() !== "").map((h) => [h.name.trim(), h.value]),
  );
}

export const EMPTY_DRAFT: ChannelDraft = {
  id: "",
  title: "",
  group: "",
  logo_url: "",
  epg_id: "",
  epg_name: "",
  epg_source: "",
  ingress: "hls",
  source_url: "",
  upstream: "",
  path: "",
  user_agent: "",
  on_demand: true,
  autostart: false,
  disabled: false,
  prefer_height: "",
  preferred_audio_languages: "",
  sort_order: "0",
  guide_number: "",
  max_viewers: "",
  engine: "auto",
  headers: [],
  keys: {},
  egress_mode: "auto",
  egress_profile_id: "",
  fallback_sources: [],
};

/** The draft fields a stored channel holds as the form edits them (strings, enums, switches). */
const AS_STORED = [
  "id",
  "title",
  "group",
  "logo_url",
  "epg_id",
  "epg_name",
  "epg_source",
  "ingress",
  "source_url",
  "upstream",
  "path",
  "user_agent",
  "on_demand",
  "autostart",
  "disabled",
  "engine",
] as const satisfies readonly (keyof ChannelDraft)[];

function pick<T, K extends keyof T>(from: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((k) => [k, from[k]])) as Pick<T, K>;
}

/** The draft of a stored channel (admin detail). Blank header values are stored secrets. */
export function draftOf(detail: ChannelDetail): ChannelDraft {
  const c = detail.channel;
  return {
    ...pick(c, AS_STORED),
    prefer_height: c.prefer_height === null ? "" : String(c.prefer_height),
    preferred_audio_languages: c.preferred_audio_languages.join(", "),
    sort_order: String(c.sort_order),
    // Absent from a channel without a number.
    guide_number: c.guide_number ?? "",
    max_viewers: c.max_viewers === null ? "" : String(c.max_viewers),
    headers: headerRowsOf(c.headers),
    keys: { ...c.keys },
    egress_mode: detail.egress_binding.mode,
    egress_profile_id:
      "profile_id" in detail.egress_binding ? detail.egress_binding.profile_id : "",
    // Absent from a channel without fallback sources.
    fallback_sources: (c.fallback_sources ?? []).map((f: FallbackSourceWire) => ({
      source_url: f.source_url,
      upstream: f.upstream,
      path: f.path,
      headers: headerRowsOf(f.headers),
      user_agent: f.user_agent,
    })),
  };
}

/** A number field: blank is null; anything else goes to the API as typed, which validates it. */
function numberOrNull(s: string): number | null {
  const t = s.trim();
  if (t === "") return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : (t as unknown as number);
}

/** The write body (spec "Channels": channel object plus `egress`). */
export function writeOf(d: ChannelDraft): ChannelWrite {
  return {
    id: d.id.trim(),
    title: d.title,
    group: d.group,
    logo_url: d.logo_url.trim(),
    epg_id: d.epg_id,
    epg_name: d.epg_name,
    epg_source: d.epg_source,
    ingress: d.ingress,
    source_url: d.source_url.trim(),
    upstream: d.upstream,
    path: d.path,
    user_agent: d.user_agent,
    on_demand: d.on_demand,
    autostart: d.autostart,
    disabled: d.disabled,
    prefer_height: numberOrNull(d.prefer_height),
    preferred_audio_languages: d.preferred_audio_languages
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== ""),
    sort_order: numberOrNull(d.sort_order) ?? 0,
    guide_number: d.guide_number.trim(),
    max_viewers: numberOrNull(d.max_viewers),
    engine: d.engine,
    headers: headersOf(d.headers),
    keys: d.keys,
    // A blank secret of a fallback is kept for the source at the same index (docs/failover.md).
    fallback_sources: d.fallback_sources.map((f) => ({
      source_url: f.source_url.trim(),
      upstream: f.upstream,
      path: f.path,
      headers: headersOf(f.headers),
      user_agent: f.user_agent,
    })),
    egress:
      d.egress_mode === "profile"
        ? { mode: "profile", profile_id: d.egress_profile_id }
        : { mode: d.egress_mode },
  };
}

/** Labels of the fields a conflict view compares. */
export const FIELD_LABELS: Record<keyof ChannelDraft, string> = {
  id: "ID",
  title: "Title",
  group: "Group",
  logo_url: "Logo URL",
  epg_id: "Guide ID",
  epg_name: "Guide name",
  epg_source: "Guide source",
  ingress: "Ingress",
  source_url: "Source URL",
  upstream: "Upstream",
  path: "Upstream path",
  user_agent: "User-Agent",
  on_demand: "On demand",
  autostart: "Autostart",
  disabled: "Disabled",
  prefer_height: "Preferred height",
  preferred_audio_languages: "Audio languages",
  sort_order: "Sort order",
  guide_number: "Channel number",
  max_viewers: "Max viewers",
  engine: "Engine",
  headers: "Headers",
  keys: "ClearKey keys",
  egress_mode: "Egress",
  egress_profile_id: "Egress profile",
  fallback_sources: "Fallback sources",
};

const headersShown = (rows: HeaderRow[]) =>
  rows.map((h) => `${h.name}: ${h.secretSet && h.value === "" ? "(set)" : h.value}`).join("; ");

/** A field value as one comparable, displayable string. */
export function shown(d: ChannelDraft, field: keyof ChannelDraft): string {
  const v = d[field];
  if (field === "headers") return headersShown(v as HeaderRow[]);
  if (field === "fallback_sources")
    return (v as FallbackDraft[])
      .map((f, i) => {
        const where = f.upstream === "" ? f.source_url : `${f.upstream}:${f.path}`;
        const extra = [headersShown(f.headers), f.user_agent && `User-Agent ${f.user_agent}`];
        return `${i + 1}. ${[where, ...extra].filter((s) => s !== "").join(", ")}`;
      })
      .join(" | ");
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** Fields whose value differs between two drafts. */
export function changedFields(a: ChannelDraft, b: ChannelDraft): (keyof ChannelDraft)[] {
  return (Object.keys(FIELD_LABELS) as (keyof ChannelDraft)[]).filter(
    (f) => shown(a, f) !== shown(b, f),
  );
}

/** The field an API message names (`title`), and the whole path (`fallback_sources[1].path`). */
export interface FieldError {
  field: string;
  path: string;
  message: string;
}

/** `title: must not be empty` → the field it names, for the message beside the input. */
export function fieldErrorOf(err: unknown): FieldError | null {
  if (!(err instanceof ApiError) || err.status !== 400) return null;
  const m = /^(([a-z_]+)(?:[.[][^:]*)?): (.+)$/.exec(err.message);
  return m ? { path: m[1]!, field: m[2]!, message: m[3]! } : null;
}

/** The write body that keeps a listed channel as stored but for `patch` (egress left as stored). */
export function rewriteOf(c: ChannelDetail["channel"], patch: Partial<ChannelWrite>): ChannelWrite {
  const { egress: _kept, ...body } = writeOf(
    draftOf({
      channel: c,
      egress_binding: { mode: "auto" },
      effective_user_agent: "",
      revision: c.revision,
      updated_at: c.updated_at,
    }),
  );
  return { ...body, ...patch };
}
