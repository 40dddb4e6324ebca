import type { AdaptationSet, Period, Representation } from "../manifest/mpd-model.js";
import { languageMatchScore, toBcp47 } from "./language-match.js";

/** Channel settings that steer the choice (operator contract: prefer_height, preferred_audio_languages). */
export interface SelectionPreferences {
  readonly preferHeight?: number;
  readonly preferredAudioLanguages?: readonly string[];
}

export interface VideoChoice {
  readonly adaptationSet: AdaptationSet;
  readonly representation: Representation;
}

export interface AudioChoice {
  readonly adaptationSet: AdaptationSet;
  readonly representation: Representation;
  /** Shortest-form BCP 47 tag for EXT-X-MEDIA LANGUAGE, when the set declares @lang. */
  readonly language?: string;
  /** The first chosen rendition is the HLS DEFAULT. */
  readonly isDefault: boolean;
}

export interface SkippedSet {
  readonly adaptationSetId?: string;
  readonly contentType: string;
  readonly reason: string;
}

export interface Selection {
  readonly video?: VideoChoice;
  readonly audio: readonly AudioChoice[];
  /** AdaptationSets deliberately not published (subtitles, thumbnails, ...). */
  readonly skipped: readonly SkippedSet[];
}

const area = (r: Representation): number => (r.width ?? 0) * (r.height ?? 0);

/**
 * Video: with `preferHeight`, the representation whose height is closest to it, ties to the
 * higher bandwidth. Without a preference, the one that "fits" best, meaning the largest
 * picture (width x height), ties to the higher bandwidth: the gateway never transcodes, so
 * the best source rendition is what players would climb to anyway.
 */
export function chooseVideo(
  sets: readonly AdaptationSet[],
  preferHeight?: number,
): VideoChoice | undefined {
  let best: VideoChoice | undefined;
  const better = (a: Representation, b: Representation): boolean => {
    if (preferHeight !== undefined) {
      const da = a.height === undefined ? Infinity : Math.abs(a.height - preferHeight);
      const db = b.height === undefined ? Infinity : Math.abs(b.height - preferHeight);
      if (da !== db) return da < db;
    } else if (area(a) !== area(b)) {
      return area(a) > area(b);
    }
    return a.bandwidth > b.bandwidth;
  };
  for (const set of sets) {
    if (set.contentType !== "video") continue;
    for (const rep of set.representations) {
      if (!best || better(rep, best.representation))
        best = { adaptationSet: set, representation: rep };
    }
  }
  return best;
}

function bestAudioRepresentation(set: AdaptationSet): Representation | undefined {
  return set.representations.reduce<Representation | undefined>(
    (a, r) => (!a || r.bandwidth > a.bandwidth ? r : a),
    undefined,
  );
}

/**
 * Audio: every audio AdaptationSet whose @lang matches one of `preferred` becomes a
 * rendition, in the order of the preference list (exact region before language-only
 * match, then document order); the first is DEFAULT. Without any match the first audio
 * set is published alone. One representation per set: the highest bandwidth.
 */
export function chooseAudio(
  sets: readonly AdaptationSet[],
  preferred: readonly string[] = [],
): AudioChoice[] {
  const audio = sets.filter((s) => s.contentType === "audio" && s.representations.length > 0);
  const picked: AdaptationSet[] = [];
  for (const wanted of preferred) {
    const matches = audio
      .map((set, order) => ({ set, order, score: languageMatchScore(wanted, set.lang) }))
      .filter((m) => m.score > 0 && !picked.includes(m.set))
      .sort((a, b) => b.score - a.score || a.order - b.order);
    for (const m of matches) picked.push(m.set);
  }
  if (picked.length === 0 && audio[0]) picked.push(audio[0]);
  return picked.flatMap((set, i) => {
    const representation = bestAudioRepresentation(set);
    if (!representation) return [];
    const language = toBcp47(set.lang);
    return [
      { adaptationSet: set, representation, isDefault: i === 0, ...(language ? { language } : {}) },
    ];
  });
}

/**
 * Pick what to publish from one Period. Subtitle sets (stpp/wvtt), thumbnails and unknown
 * content are reported in `skipped` and otherwise ignored.
 * @example selectRepresentations(mpd.periods[0], { preferHeight: 720, preferredAudioLanguages: ['de', 'en'] })
 */
export function selectRepresentations(period: Period, prefs: SelectionPreferences = {}): Selection {
  const video = chooseVideo(period.adaptationSets, prefs.preferHeight);
  const audio = chooseAudio(period.adaptationSets, prefs.preferredAudioLanguages);
  const skipped: SkippedSet[] = [];
  for (const set of period.adaptationSets) {
    if (set.contentType === "video" || set.contentType === "audio") continue;
    const reason =
      set.contentType === "text"
        ? "subtitles are not published by the native engine"
        : `${set.contentType} content is not published`;
    skipped.push({
      ...(set.id === undefined ? {} : { adaptationSetId: set.id }),
      contentType: set.contentType,
      reason,
    });
  }
  return { ...(video ? { video } : {}), audio, skipped };
}
