// Language tags in MPDs are RFC 5646 (BCP 47) per ISO/IEC 23009-1 5.3.7.2 (@lang), but
// packagers often write ISO 639-2 three-letter codes ("eng", "ger"/"deu"). BCP 47 itself
// prefers the shortest ISO 639 code, so both sides are folded to that before comparing.

// ISO 639-2 (bibliographic and terminology forms) -> ISO 639-1, for languages that have both.
const ISO639_2_TO_1: ReadonlyMap<string, string> = new Map(
  Object.entries({
    ara: "ar",
    bul: "bg",
    cat: "ca",
    ces: "cs",
    cze: "cs",
    chi: "zh",
    zho: "zh",
    dan: "da",
    deu: "de",
    ger: "de",
    ell: "el",
    gre: "el",
    eng: "en",
    spa: "es",
    est: "et",
    eus: "eu",
    baq: "eu",
    fas: "fa",
    per: "fa",
    fin: "fi",
    fra: "fr",
    fre: "fr",
    gle: "ga",
    glg: "gl",
    heb: "he",
    hin: "hi",
    hrv: "hr",
    hun: "hu",
    hye: "hy",
    arm: "hy",
    ind: "id",
    isl: "is",
    ice: "is",
    ita: "it",
    jpn: "ja",
    kat: "ka",
    geo: "ka",
    kor: "ko",
    lit: "lt",
    lav: "lv",
    mkd: "mk",
    mac: "mk",
    msa: "ms",
    may: "ms",
    mlt: "mt",
    nld: "nl",
    dut: "nl",
    nor: "no",
    nob: "nb",
    nno: "nn",
    pol: "pl",
    por: "pt",
    ron: "ro",
    rum: "ro",
    rus: "ru",
    slk: "sk",
    slo: "sk",
    slv: "sl",
    sqi: "sq",
    alb: "sq",
    srp: "sr",
    swe: "sv",
    tha: "th",
    tur: "tr",
    ukr: "uk",
    urd: "ur",
    vie: "vi",
    cym: "cy",
    wel: "cy",
    ben: "bn",
    tam: "ta",
    tel: "te",
    mar: "mr",
    pan: "pa",
    guj: "gu",
    kan: "kn",
    mal: "ml",
    afr: "af",
    swa: "sw",
    tgl: "tl",
    bos: "bs",
    bel: "be",
    kaz: "kk",
    aze: "az",
    uzb: "uz",
    lat: "la",
    ltz: "lb",
    fao: "fo",
    kur: "ku",
    pus: "ps",
  }),
);

/** A language tag split into a comparable primary language and the rest, lowercased. */
export interface NormalizedLanguage {
  /** ISO 639-1 when one exists, else the tag's own primary subtag. */
  readonly language: string;
  /** Region subtag (e.g. "us"), when present. */
  readonly region?: string;
  /** Canonical tag: language plus the remaining subtags, "-" separated. */
  readonly tag: string;
}

/**
 * Normalise a BCP 47 / ISO 639 tag.
 * @example normalizeLanguage('eng_US') // { language: 'en', region: 'us', tag: 'en-us' }
 */
export function normalizeLanguage(raw: string): NormalizedLanguage | undefined {
  const parts = raw.trim().toLowerCase().replace(/_/g, "-").split("-").filter(Boolean);
  const primary = parts[0];
  if (
    !primary ||
    !/^[a-z]{2,8}$/.test(primary) ||
    primary === "und" ||
    primary === "mul" ||
    primary === "zxx"
  )
    return undefined;
  const language = ISO639_2_TO_1.get(primary) ?? primary;
  const rest = parts.slice(1);
  const region = rest.find((p) => /^([a-z]{2}|\d{3})$/.test(p));
  return { language, ...(region ? { region } : {}), tag: [language, ...rest].join("-") };
}

/**
 * How well `candidate` satisfies the preference `wanted`: 0 no match, 1 same language
 * with a different or missing region, 2 same language and region (or the preference
 * names no region). `en` matches `en-US` and `eng`; `en-GB` prefers `en-GB` over `en-US`.
 */
export function languageMatchScore(wanted: string, candidate: string | undefined): 0 | 1 | 2 {
  if (candidate === undefined) return 0;
  const w = normalizeLanguage(wanted);
  const c = normalizeLanguage(candidate);
  if (!w || !c || w.language !== c.language) return 0;
  if (w.region === undefined || w.region === c.region) return 2;
  return 1;
}

/** Shortest-form BCP 47 tag for HLS LANGUAGE (RFC 8216bis 4.4.6.1 wants RFC 5646 tags). */
export function toBcp47(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const n = normalizeLanguage(raw);
  if (!n) return undefined;
  const [language, ...rest] = n.tag.split("-");
  // Region subtags are conventionally upper case ("en-US"), scripts title case ("zh-Hant").
  const pretty = rest.map((p) =>
    /^[a-z]{2}$/.test(p)
      ? p.toUpperCase()
      : /^[a-z]{4}$/.test(p)
        ? p[0]?.toUpperCase() + p.slice(1)
        : p,
  );
  return [language, ...pretty].join("-");
}
