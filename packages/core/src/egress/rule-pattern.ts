import { RE2JS } from "re2js";
import type { RuleKind } from "./routing-document.js";

/** Longest pattern a rule may hold; regexes beyond it are refused before compiling. */
export const MAX_PATTERN_LENGTH = 512;

export type PatternCheck =
  | { readonly ok: true; readonly test: (input: string) => boolean }
  | { readonly ok: false; readonly message: string };

/**
 * Compiles one rule's pattern. Regex kinds run on RE2JS, a port of RE2 whose matching time is
 * linear in the input whatever the pattern: a nested quantifier such as `(a+)+$` cannot
 * backtrack catastrophically, and constructs that need backtracking (backreferences,
 * lookaround) are syntax errors, so an admin-written regex can never stall the request path.
 * Host kinds compare the URL parser's lowercase host; `host_suffix` matches the host itself or
 * any name under it on a label boundary (`example.com` matches `cdn.example.com`, not
 * `badexample.com`).
 */
export function compileRulePattern(kind: RuleKind, pattern: string): PatternCheck {
  if (pattern.length === 0) return { ok: false, message: "pattern must not be empty" };
  if (pattern.length > MAX_PATTERN_LENGTH)
    return { ok: false, message: `pattern is longer than ${MAX_PATTERN_LENGTH} characters` };
  switch (kind) {
    case "host_exact": {
      const host = normalizeHostPattern(pattern);
      return { ok: true, test: (h) => h === host };
    }
    case "host_suffix": {
      const suffix = normalizeHostPattern(pattern).replace(/^\*?\./, "");
      if (suffix === "") return { ok: false, message: "pattern must name a domain" };
      return { ok: true, test: (h) => h === suffix || h.endsWith(`.${suffix}`) };
    }
    case "channel_id":
      return { ok: true, test: (id) => id === pattern };
    case "host_regex":
    case "url_regex": {
      let re: RE2JS;
      try {
        re = RE2JS.compile(pattern, kind === "host_regex" ? RE2JS.CASE_INSENSITIVE : 0);
      } catch (err) {
        const detail = err instanceof Error ? err.message : String(err);
        return { ok: false, message: `invalid regular expression (RE2 syntax): ${detail}` };
      }
      return { ok: true, test: (input) => re.matcher(input).find() };
    }
  }
}

function normalizeHostPattern(pattern: string): string {
  return pattern.trim().toLowerCase().replace(/\.$/, "");
}
