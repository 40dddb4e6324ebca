import type { Representation } from "../manifest/mpd-model.js";

/** ISO/IEC 23009-1 5.8.5.2: the scheme that names the common-encryption protection scheme. */
const MP4_PROTECTION = "urn:mpeg:dash:mp4protection:2011";
/** ISO/IEC 23001-7 schemes the native decryptor implements (docs/cenc.md). */
const NATIVE_SCHEMES = new Set(["cenc", "cbcs", "cens", "cbc1"]);

/** Protection facts of one chosen representation. */
export interface RepresentationProtection {
  readonly encrypted: boolean;
  /** `@value` of the mp4protection descriptor (lowercased), when one is present. */
  readonly scheme?: string;
  /** Distinct `cenc:default_KID`s over all of its ContentProtection elements. */
  readonly kids: readonly string[];
}

export function representationProtection(rep: Representation): RepresentationProtection {
  const cps = rep.contentProtection;
  const kids = [
    ...new Set(cps.flatMap((cp) => (cp.defaultKid === undefined ? [] : [cp.defaultKid]))),
  ];
  const mp4 = cps.find((cp) => cp.schemeIdUri.trim().toLowerCase() === MP4_PROTECTION);
  const scheme = mp4?.value?.trim().toLowerCase();
  return { encrypted: cps.length > 0, kids, ...(scheme ? { scheme } : {}) };
}

/** A chosen track across Periods: `video`, or an audio rendition named by language or position. */
export interface ProtectedTrack {
  readonly slot: string;
  readonly rep: Representation;
}

/** A normalised KID: 32 lowercase hex digits, UUID dashes removed. */
export function normalizeKid(kid: string): string {
  return kid.replace(/-/g, "").trim().toLowerCase();
}

/**
 * Reasons the native engine cannot decrypt the chosen tracks. The native decryptor keys
 * by KID from a table fixed at session start, so it needs every KID up front from
 * `cenc:default_KID`, one KID per track for the whole presentation (a KID that changes
 * across Periods is key rotation it does not follow), a scheme it implements, and a key
 * for each KID. Different KIDs for video and audio are fine: that is not rotation.
 */
export function protectionProblems(
  tracks: readonly ProtectedTrack[],
  availableKids: ReadonlySet<string> | "any",
): { problems: string[]; encrypted: boolean; kids: string[] } {
  const problems: string[] = [];
  const kidsBySlot = new Map<string, Set<string>>();
  const allKids = new Set<string>();
  let encrypted = false;
  for (const { slot, rep } of tracks) {
    const p = representationProtection(rep);
    if (!p.encrypted) continue;
    encrypted = true;
    if (p.scheme !== undefined && !NATIVE_SCHEMES.has(p.scheme))
      problems.push(
        `Representation ${rep.id} is encrypted with scheme '${p.scheme}', not cenc/cbcs/cens/cbc1`,
      );
    if (p.kids.length === 0)
      problems.push(
        `Representation ${rep.id} has ContentProtection without cenc:default_KID, so its keys cannot be known ahead`,
      );
    if (p.kids.length > 1)
      problems.push(
        `Representation ${rep.id} declares ${p.kids.length} different default_KIDs (key rotation)`,
      );
    const seen = kidsBySlot.get(slot) ?? new Set<string>();
    for (const kid of p.kids) {
      seen.add(kid);
      allKids.add(kid);
    }
    kidsBySlot.set(slot, seen);
  }
  for (const [slot, kids] of kidsBySlot) {
    if (kids.size > 1)
      problems.push(`${slot} changes KID across Periods (${kids.size} KIDs: key rotation)`);
  }
  if (availableKids === "any") {
    // Capabilities only: the caller checks the keys itself.
  } else if (encrypted && availableKids.size === 0)
    problems.push(
      "the source is encrypted and no keys are configured (channel keys or media.keys)",
    );
  else
    for (const kid of allKids)
      if (!availableKids.has(kid)) problems.push(`no key is configured for KID ${kid}`);
  return { problems: [...new Set(problems)], encrypted, kids: [...allKids].sort() };
}
