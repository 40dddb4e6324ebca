import type * as v from "valibot";

/** One thing wrong with the config, reported as `path: message` (operator contract). */
export interface ConfigProblem {
  readonly path: string;
  readonly message: string;
}

/** Thrown by config loading; the app prints one line per problem and exits 2. */
export class ConfigError extends Error {
  readonly problems: readonly ConfigProblem[];
  constructor(problems: readonly ConfigProblem[]) {
    super(problems.map(formatProblem).join("\n"));
    this.name = "ConfigError";
    this.problems = problems;
  }
}

export function formatProblem(p: ConfigProblem): string {
  return p.path === "" ? p.message : `${p.path}: ${p.message}`;
}

/** `auth.users[0].password_hash` from a valibot issue path. */
export function issuePath(issue: v.BaseIssue<unknown>, prefix = ""): string {
  let out = prefix;
  for (const item of issue.path ?? []) {
    const key = item.key;
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** A short, operator-facing message for a valibot issue. */
export function issueMessage(issue: v.BaseIssue<unknown>): string {
  if (issue.type === "strict_object" && issue.expected === "never") return "unknown key";
  if (issue.received === "undefined") return "required";
  if (issue.kind === "schema") {
    // Custom messages (picklist, union) read better than the generic type line.
    if (!issue.message.startsWith("Invalid type")) return issue.message;
    return `expected ${issue.expected ?? "a different value"}, got ${issue.received}`;
  }
  if (issue.message.startsWith("Invalid ")) {
    return `expected ${issue.expected ?? "a different value"}, got ${issue.received}`;
  }
  return issue.message;
}

/** Every problem of a failed valibot parse, deduplicated, in document order. */
export function problemsFromIssues(
  issues: readonly v.BaseIssue<unknown>[],
  prefix = "",
): ConfigProblem[] {
  const seen = new Set<string>();
  const out: ConfigProblem[] = [];
  for (const issue of issues) {
    const p = { path: issuePath(issue, prefix), message: issueMessage(issue) };
    const key = `${p.path}\0${p.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(p);
    }
  }
  return out;
}
