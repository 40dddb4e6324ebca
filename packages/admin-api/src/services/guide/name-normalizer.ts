/**
 * Channel-name normalisation for guide matching (docs/guide.md "Matching"):
 * accents, case and punctuation removed, `&`→and, `+`→plus, number words as
 * digits, quality tags (HD, FHD, UHD, 4K, …) and a leading or trailing country
 * tag (`UK:`, `|DE|`, `(US)`, `… UK`) dropped. "BBC One HD", "UK: BBC ONE FHD"
 * and "bbc.one" all give `bbcone`.
 */

const QUALITY = new Set([
  "hd",
  "fhd",
  "uhd",
  "sd",
  "hq",
  "4k",
  "8k",
  "hdr",
  "hevc",
  "h264",
  "h265",
  "1080p",
  "1080i",
  "720p",
  "576i",
  "50fps",
  "60fps",
  "backup",
  "raw",
  "tv",
]);

// ISO 3166 alpha-2 codes used as channel-name tags, plus the usual longer forms.
const COUNTRY = new Set([
  "uk",
  "gb",
  "us",
  "usa",
  "ca",
  "au",
  "nz",
  "ie",
  "de",
  "at",
  "ch",
  "fr",
  "be",
  "nl",
  "lu",
  "it",
  "es",
  "pt",
  "br",
  "mx",
  "ar",
  "pl",
  "cz",
  "sk",
  "hu",
  "ro",
  "bg",
  "gr",
  "tr",
  "ru",
  "ua",
  "se",
  "no",
  "dk",
  "fi",
  "is",
  "in",
  "pk",
  "ae",
  "sa",
  "za",
  "ng",
  "jp",
  "kr",
  "cn",
  "hk",
  "tw",
  "ph",
  "int",
  "intl",
  "eu",
  "latam",
]);

const regionNames = new Intl.DisplayNames(["en"], { type: "region" });
/**
 * A leading tag (`TH:`, `|XK|`) may be any region code the runtime's CLDR data
 * names (ISO 3166-1 alpha-2 and a few like `UK`, `EU`, `XK`), besides {@link COUNTRY}:
 * the separator makes it a tag. A trailing bare tag is only one of {@link COUNTRY}
 * ("… TV" is not Tuvalu).
 */
function isCountryTag(tag: string): boolean {
  if (COUNTRY.has(tag)) return true;
  if (tag.length !== 2) return false;
  let known = regionTags.get(tag);
  if (known === undefined) {
    const upper = tag.toUpperCase();
    const name = regionNames.of(upper);
    known = name !== undefined && name !== upper && name !== "Unknown Region";
    regionTags.set(tag, known);
  }
  return known;
}
const regionTags = new Map<string, boolean>();

// A Map, not an object literal: a lookup of an arbitrary token never reaches
// Object.prototype ("constructor"), and needs no internalised key.
const NUMBER_WORDS = new Map([
  ["one", "1"],
  ["two", "2"],
  ["three", "3"],
  ["four", "4"],
  ["five", "5"],
  ["six", "6"],
  ["seven", "7"],
  ["eight", "8"],
  ["nine", "9"],
  ["ten", "10"],
  ["eins", "1"],
  ["zwei", "2"],
  ["drei", "3"],
  ["un", "1"],
  ["deux", "2"],
  ["trois", "3"],
]);

// "UK: BBC One", "|UK| BBC One", "[UK] BBC One", "UK - BBC One"
const LEADING_TAG =
  /^\s*(?:[[|(]\s*([a-z]{2,5})\s*[\]|)]\s*[:|-]?|([a-z]{2,5})\s*(?::|\||\s-\s))\s*/u;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Tokens of a name after case, accent and punctuation folding, tags removed. */
export function nameTokens(name: string): string[] {
  // Most names are ASCII: NFKD and the mark removal are skipped for them, and
  // their words are cut by one scan instead of replace + split + filter (the
  // matching index normalises every display name of every guide channel).
  const ascii = PRINTABLE_ASCII.test(name);
  let s = (ascii ? name : name.normalize("NFKD").replace(/\p{M}+/gu, "")).toLowerCase();
  s = s.replace(LEADING_TAG, (m, bracketed?: string, bare?: string) =>
    isCountryTag(bracketed ?? bare ?? "") ? "" : m,
  );
  const tokens = ascii ? asciiWords(s) : unicodeWords(s);
  for (let i = 0; i < tokens.length; i++) tokens[i] = NUMBER_WORDS.get(tokens[i]!) ?? tokens[i]!;
  while (tokens.length > 1 && QUALITY.has(tokens[tokens.length - 1]!)) tokens.pop();
  if (tokens.length > 1 && COUNTRY.has(tokens[tokens.length - 1]!)) tokens.pop();
  while (tokens.length > 1 && QUALITY.has(tokens[tokens.length - 1]!)) tokens.pop();
  return tokens;
}

/** Runs of a-z0-9 of a lowercased printable-ASCII string; `&` is the word "and", `+` "plus". */
function asciiWords(s: string): string[] {
  const words: string[] = [];
  let from = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
      if (from < 0) from = i;
      continue;
    }
    if (from >= 0) words.push(s.slice(from, i));
    from = -1;
    if (c === 38) words.push("and");
    else if (c === 43) words.push("plus");
  }
  if (from >= 0) words.push(s.slice(from));
  return words;
}

function unicodeWords(s: string): string[] {
  return s
    .replace(/&/g, " and ")
    .replace(/\+/g, " plus ")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t !== "");
}

/** Accents and case folded, letters and digits only, nothing dropped: how a name is spelt. */
export function foldName(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "");
}

/** The matching key of a name: its tokens joined (so "BBCOne" equals "BBC One"). */
export function nameKey(name: string): string {
  return nameTokens(name).join("");
}

/** Picons' service-name form (picons.xyz "SNP"): lowercase letters and digits only. */
export function snpName(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .replace(/&/g, "and")
    .replace(/\+/g, "plus")
    .replace(/\*/g, "star")
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "");
}

/** `bbc-one-hd`: lowercase words joined by hyphens (the tv-logos file naming). */
export function slugName(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .replace(/&/g, " and ")
    .replace(/\+/g, " plus ")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t !== "")
    .join("-");
}
