import assert from "node:assert/strict";
import { request } from "node:http";
import type { GatewayProcess } from "../harness/gateway-process.js";
import { repoRoot } from "../harness/paths.js";

/** One answer of the gateway to a hostile request, kept for the group's invariant check. */
export interface Answer {
  readonly label: string;
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

/** Signs that a body leaks internals: a V8 stack frame, a source position, a file-system path. */
const LEAKS: readonly RegExp[] = [
  /\n\s+at [^\n]+[(:]\d+/,
  /\bat (?:async )?[\w.<>]+ \(/,
  /\.(?:ts|js|mjs|cjs):\d+(?::\d+)?\b/,
  /node_modules/,
  // (not /etc or /proc: an error message may echo a path the attacker sent)
  /(?:^|[\s"'(])\/(?:work|tmp|home|root|usr|opt|var|srv)\//,
  /\b(?:TypeError|RangeError|SyntaxError|ReferenceError)\b/,
  /SQLITE_|better-sqlite3/,
];

/**
 * Collects answers of one hostile group, then asserts the suite's invariants on them
 * (issue 14 item 2): no 500, every JSON error in the one `{error:{code,message}}` shape, no
 * stack trace or internal path in any body, and the process still alive and healthy.
 */
export class HostileGroup {
  readonly answers: Answer[] = [];

  constructor(private readonly gw: GatewayProcess) {}

  /** Records a fetch Response (its body is read here). */
  async record(label: string, res: Response): Promise<Answer> {
    const text = await res.text();
    return this.add({
      label,
      status: res.status,
      contentType: res.headers.get("content-type") ?? "",
      text,
    });
  }

  add(answer: Answer): Answer {
    this.answers.push(answer);
    return answer;
  }

  /** Asserts the invariants over everything recorded so far, then forgets it. */
  async check(): Promise<void> {
    assert.ok(this.answers.length > 0, "the group sent nothing");
    for (const a of this.answers) assertNoLeak(a, this.gw);
    this.answers.length = 0;
    assert.equal(this.gw.proc.exitCode, null, `gateway exited:\n${this.gw.stderr()}`);
    assert.equal(this.gw.proc.signalCode, null, "gateway was killed");
    const health = await fetch(`${this.gw.url}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: "ok" });
    assert.doesNotMatch(this.gw.stderr(), /Unhandled|uncaught|FATAL|\n\s+at .+:\d+:\d+\)/i);
  }
}

/** One answer's invariants: no 500, the error shape, no internals in the body. */
export function assertNoLeak(a: Answer, gw?: GatewayProcess): void {
  const where = `${a.label}: ${a.status} ${a.text.slice(0, 300)}`;
  assert.notEqual(a.status, 500, where);
  if (a.status >= 400 && a.contentType.includes("json")) {
    const body = JSON.parse(a.text) as { error?: { code?: unknown; message?: unknown } };
    assert.deepEqual(Object.keys(body), ["error"], where);
    assert.deepEqual(Object.keys(body.error ?? {}).sort(), ["code", "message"], where);
    assert.equal(typeof body.error?.code, "string", where);
    assert.equal(typeof body.error?.message, "string", where);
  }
  for (const re of LEAKS) assert.doesNotMatch(a.text, re, where);
  assert.ok(!a.text.includes(repoRoot), where);
  if (gw !== undefined) assert.ok(!a.text.includes(gw.dataDir), where);
}

/**
 * One request with the target sent byte for byte (fetch and the URL parser would resolve `..`,
 * `%2e%2e` and backslashes before the gateway saw them), on its own connection. `chunks` are
 * written one by one without a Content-Length (chunked). A server may answer an oversized
 * body early and close (RFC 9112 9.6): the answer counts, a write error after it does not.
 */
export function rawRequest(
  base: string,
  target: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: Buffer | string;
    chunks?: Buffer[];
  } = {},
): Promise<{ status: number; contentType: string; text: string }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        method: options.method ?? "GET",
        path: target,
        headers: options.headers,
        agent: false,
        timeout: 20_000,
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers["content-type"] ?? ""),
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer to ${target} in 20 s`)));
    req.on("error", (err) => {
      if (!answered) reject(err);
    });
    if (options.chunks !== undefined) {
      for (const c of options.chunks) req.write(c);
      req.end();
    } else req.end(options.body);
  });
}
