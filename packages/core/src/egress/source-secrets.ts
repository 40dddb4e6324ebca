import { isSensitiveHeader } from "./sensitive-headers.js";

/** What a source carries that a reader of the admin API never sees: headers and ClearKey keys. */
export interface SourceSecrets {
  readonly headers: Readonly<Record<string, string>>;
  /** `{KID hex: key hex}`; every value is a secret. */
  readonly keys: Readonly<Record<string, string>>;
}

export interface CarriedSecrets {
  readonly headers: Record<string, string>;
  readonly keys: Record<string, string>;
  /**
   * Stored secrets left behind because the source moved to another origin, named by their
   * place in a write body (`headers.Authorization`, `keys.<KID>`), sorted.
   */
  readonly dropped: string[];
}

/** How the written maps relate to the stored ones. */
export type CarryMode =
  /** A channel `PUT`: the written maps are the whole new maps; a blank value asks to keep. */
  | "replace"
  /** An M3U update: a stored name the entry does not restate stays. */
  | "merge";

/** `scheme://host[:port]` of an absolute http(s) URL (default port folded), else undefined. */
export function sourceOrigin(url: string | undefined): string | undefined {
  if (url === undefined || url === "") return undefined;
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Issue 30 item 2: a stored secret follows a source only to the same origin (scheme, host and
 * port). Egress sends a channel's sensitive headers to the origin of its current source
 * (`credentialOrigin`), so a write that moves the source elsewhere and keeps them would hand
 * them to whoever runs the new origin, though the writer never read them (admin reads blank
 * them). When the origin changes, stored sensitive headers and every stored ClearKey key are
 * dropped unless the write states a new value; plain headers are not secrets and keep the
 * old rule (spec "Channel": a blank value keeps the stored one). One rule per source, so a
 * list of sources (extensions.md `fallback_sources`) applies it to each with that source's
 * stored secrets and origins.
 *
 * @example
 * carrySecrets({ from: "http://a", to: "http://b", mode: "replace",
 *   stored: { headers: { Authorization: "x" }, keys: {} },
 *   written: { headers: { Authorization: "" }, keys: {} } })
 * // { headers: {}, keys: {}, dropped: ["headers.Authorization"] }
 */
export function carrySecrets(input: {
  readonly from: string | undefined;
  readonly to: string | undefined;
  readonly stored: SourceSecrets;
  readonly written: SourceSecrets;
  readonly mode: CarryMode;
}): CarriedSecrets {
  const same = input.from !== undefined && input.from === input.to;
  const dropped: string[] = [];
  const headers = carryMap(input.stored.headers, input.written.headers, {
    mode: input.mode,
    secret: (name) => !same && isSensitiveHeader(name),
    drop: (name) => dropped.push(`headers.${name}`),
  });
  const keys = carryMap(input.stored.keys, input.written.keys, {
    mode: input.mode,
    secret: () => !same,
    drop: (kid) => dropped.push(`keys.${kid}`),
  });
  return { headers, keys, dropped: dropped.sort() };
}

function carryMap(
  stored: Readonly<Record<string, string>>,
  written: Readonly<Record<string, string>>,
  rule: {
    mode: CarryMode;
    /** True when the stored value of this name may not follow the source. */
    secret: (name: string) => boolean;
    drop: (name: string) => void;
  },
): Record<string, string> {
  // Header names and KIDs (hex) are both caseless.
  const fold = (name: string) => name.toLowerCase();
  type Entry = { k: string; v: string };
  const out: Record<string, string> = {};
  const take = (w: Entry, was: Entry | undefined) => {
    if (w.v !== "") out[w.k] = w.v;
    else if (was === undefined || was.v === "") return;
    else if (rule.secret(was.k)) rule.drop(was.k);
    else out[w.k] = was.v;
  };
  const pending = new Map(Object.entries(written).map(([k, v]) => [fold(k), { k, v }]));
  if (rule.mode === "merge") {
    // Stored order first, so re-importing an unchanged entry compares equal.
    for (const [k, v] of Object.entries(stored)) {
      const w = pending.get(fold(k));
      pending.delete(fold(k));
      take(w ?? { k, v: "" }, { k, v });
    }
    for (const w of pending.values()) take(w, undefined);
    return out;
  }
  const storedByName = new Map(Object.entries(stored).map(([k, v]) => [fold(k), { k, v }]));
  for (const [k, v] of Object.entries(written)) take({ k, v }, storedByName.get(fold(k)));
  return out;
}
