import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import * as v from "valibot";
import { parseDocument } from "yaml";
import { guideNumberKey } from "../base/catalog.js";
import { routingProblems } from "../egress/routing-validation.js";
import { checkChannelSource, checkFallbackSources } from "./channel-schema.js";
import { isPostgresUrl } from "./database-url.js";
import type { Environment } from "./environment.js";
import { ConfigError, type ConfigProblem, problemsFromIssues } from "./problems.js";
import { type ConfigFile, configSchema, SECTION_KEYS } from "./schema.js";

type DeepReadonly<T> = T extends (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

/** The gateway's configuration: the validated file with env overrides, frozen. */
export type GatewayConfig = DeepReadonly<ConfigFile> & {
  /** Absolute path of the file it was read from ("" for an embedded default). */
  readonly sourcePath: string;
};

/**
 * Parses and validates config text. Throws {@link ConfigError} listing every
 * problem with its key path; nothing is partially applied.
 */
export function parseConfig(text: string, env: Environment, sourcePath = ""): GatewayConfig {
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      doc.errors.map((e) => ({
        path: "",
        message: `YAML error${e.linePos ? ` at line ${e.linePos[0].line}` : ""}: ${e.message.split("\n")[0]}`,
      })),
    );
  }
  const raw = doc.toJS() ?? {};
  if (typeof raw !== "object" || Array.isArray(raw)) {
    throw new ConfigError([{ path: "", message: "the config file must be a YAML mapping" }]);
  }
  const withSections: Record<string, unknown> = { ...raw };
  for (const key of SECTION_KEYS)
    if (withSections[key] === undefined || withSections[key] === null) withSections[key] = {};
  // SVC_WORKERS before the schema, so a bad value is refused like the file's (`server.workers`).
  if (env.workers !== undefined && typeof withSections.server === "object")
    withSections.server = {
      ...withSections.server,
      workers: /^\d+$/.test(env.workers) ? Number(env.workers) : env.workers,
    };
  const parsed = v.safeParse(configSchema, withSections, { abortEarly: false });
  if (!parsed.success) throw new ConfigError(problemsFromIssues(parsed.issues));
  const file = parsed.output;
  applyEnvironment(file, env);
  const problems = crossFieldProblems(file);
  if (problems.length > 0) throw new ConfigError(problems);
  if (file.server.data_dir !== "") file.server.data_dir = resolve(file.server.data_dir);
  return deepFreeze({ ...file, sourcePath });
}

/** Reads and parses a config file; an unreadable file is a config problem too. */
export function loadConfigFile(path: string, env: Environment): GatewayConfig {
  let text: string;
  const absolute = resolve(path);
  try {
    text = readFileSync(absolute, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "unreadable";
    throw new ConfigError([{ path: "", message: `cannot read config file ${absolute} (${code})` }]);
  }
  return parseConfig(text, env, absolute);
}

/** Directory of the config file, for resolving paths relative to it. */
export function configDirectory(config: GatewayConfig): string {
  return config.sourcePath === "" ? process.cwd() : dirname(config.sourcePath);
}

function applyEnvironment(file: ConfigFile, env: Environment): void {
  if (env.tokenPrivateKey !== undefined) file.auth.token_private_key = env.tokenPrivateKey;
  if (env.tokenPrivateKeyFile !== undefined)
    file.auth.token_private_key_file = env.tokenPrivateKeyFile;
  if (env.databaseUrl !== undefined) file.server.database_url = env.databaseUrl;
  if (env.playOpen) file.security.play_require_auth = false;
}

/** Rules that span fields (spec "Configured user", "Session signing", contract "Channel object"). */
function crossFieldProblems(file: ConfigFile): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const seenUsers = new Set<string>();
  file.auth.users.forEach((u, i) => {
    if (seenUsers.has(u.username)) {
      problems.push({
        path: `auth.users[${i}].username`,
        message: `duplicate username "${u.username}"`,
      });
    }
    seenUsers.add(u.username);
  });
  const a = file.auth;
  if (
    a.token_private_key === "" &&
    a.token_private_key_file === "" &&
    file.server.data_dir === ""
  ) {
    problems.push({
      path: "auth.token_private_key",
      message: "required when neither auth.token_private_key_file nor server.data_dir is set",
    });
  }
  if (a.token_public_key !== "" && a.token_public_key_file !== "") {
    problems.push({
      path: "auth.token_public_key",
      message: "give token_public_key or token_public_key_file, not both",
    });
  }
  const s = file.server;
  // After the environment: SVC_DATABASE_URL is checked like the key it overrides.
  // The message never repeats the value (it may hold the password).
  if (s.database_url !== "" && !isPostgresUrl(s.database_url)) {
    problems.push({
      path: "server.database_url",
      message:
        "must be a postgres:// or postgresql:// URL (postgres://user:password@host:port/database)",
    });
  }
  if ((s.tls_cert_file === "") !== (s.tls_key_file === "")) {
    problems.push({
      path: "server.tls_cert_file",
      message: "tls_cert_file and tls_key_file go together",
    });
  }
  const upstreamIds = new Set<string>();
  file.upstreams.forEach((u, i) => {
    if (upstreamIds.has(u.id))
      problems.push({ path: `upstreams[${i}].id`, message: `duplicate upstream id "${u.id}"` });
    upstreamIds.add(u.id);
  });
  const channelIds = new Set<string>();
  const guideNumbers = new Map<string, string>();
  file.channels.forEach((c, i) => {
    if (channelIds.has(c.id))
      problems.push({ path: `channels[${i}].id`, message: `duplicate channel id "${c.id}"` });
    channelIds.add(c.id);
    // A media server's lineup cannot hold one number twice (docs/hdhomerun.md "Channel numbers").
    if (c.guide_number !== "") {
      const other = guideNumbers.get(guideNumberKey(c.guide_number));
      if (other !== undefined)
        problems.push({
          path: `channels[${i}].guide_number`,
          message: `guide_number "${c.guide_number}" is also channel "${other}"'s`,
        });
      else guideNumbers.set(guideNumberKey(c.guide_number), c.id);
    }
    const source = checkChannelSource(c);
    if (source !== undefined)
      problems.push({ path: `channels[${i}].${source.path}`, message: source.message });
    const fallback = checkFallbackSources(c.fallback_sources);
    if (fallback !== undefined)
      problems.push({ path: `channels[${i}].${fallback.path}`, message: fallback.message });
    c.fallback_sources.forEach((f, j) => {
      if (f.upstream !== "" && !upstreamIds.has(f.upstream))
        problems.push({
          path: `channels[${i}].fallback_sources[${j}].upstream`,
          message: `unknown upstream "${f.upstream}"`,
        });
    });
    if (c.upstream !== "" && !upstreamIds.has(c.upstream)) {
      problems.push({
        path: `channels[${i}].upstream`,
        message: `unknown upstream "${c.upstream}"`,
      });
    }
  });
  // The same rules as the admin API's egress writes (docs/egress.md).
  for (const p of routingProblems(routingDocumentOf(file)))
    problems.push({ path: `egress.${p.path}`, message: p.message });
  return problems;
}

function routingDocumentOf(file: ConfigFile) {
  const e = file.egress;
  return {
    default: e.default,
    docker_proxy_host: e.docker_proxy_host,
    proxies: e.proxies,
    rules: e.rules,
  };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
