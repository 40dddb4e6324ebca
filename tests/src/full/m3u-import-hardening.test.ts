import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { type ClientRequest, type IncomingMessage, request } from "node:http";
import { after, before, describe, it } from "node:test";
import { requestJson } from "../harness/http-client.js";
import { assertError, createApiToken, type FullGateway, startFull } from "./full-fixture.js";

// Issue 30 items 1 and 6: an M3U import never blocks the process, and admin bodies are read
// only after the credential gate, under a ceiling that holds while they stream in.

const MAX_BODY = 1_048_576;
/** The import ceiling: 32 × max_body_bytes (docs/m3u.md). */
const IMPORT_CEILING = 32 * MAX_BODY;
const IMPORT = "/v1/admin/import/m3u";

interface Answer {
  readonly status: number;
  readonly headers: IncomingMessage["headers"];
  readonly text: string;
}

/**
 * A POST whose body the test writes piece by piece (chunked), to see what the gateway answers
 * before the body is complete. `answer` settles with the first response, whatever the upload
 * is doing; write errors after a response (the gateway closing an unread body) are ignored.
 */
function openUpload(base: string, path: string, headers: Record<string, string>) {
  const u = new URL(base);
  let req!: ClientRequest;
  const answer = new Promise<Answer>((resolve, reject) => {
    let answered = false;
    req = request(
      {
        host: u.hostname,
        port: u.port,
        method: "POST",
        path,
        agent: false,
        headers: { "content-type": "application/json", "transfer-encoding": "chunked", ...headers },
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", (err) => {
      if (!answered) reject(err);
    });
  });
  return { req, answer };
}

/** The answer within `ms`, or "none" when the gateway is still waiting for the body. */
async function answerWithin(answer: Promise<Answer>, ms: number): Promise<Answer | "none"> {
  let timer: NodeJS.Timeout | undefined;
  const none = new Promise<"none">((resolve) => {
    timer = setTimeout(() => resolve("none"), ms);
  });
  try {
    return await Promise.race([answer, none]);
  } finally {
    clearTimeout(timer);
  }
}

const asError = (a: Answer) => ({ status: a.status, body: JSON.parse(a.text), text: a.text });

/** The start of a valid import body that the test never finishes: `{"content":"#EXTM3U\n…`. */
function bodyStart(bytes: number): Buffer {
  const head = Buffer.from('{"content":"#EXTM3U\\n');
  return Buffer.concat([head, Buffer.alloc(Math.max(0, bytes - head.length), 0x20)]);
}

/** An M3U of about `bytes` characters in the shape panels export, with distinct sources. */
function playlistOf(bytes: number): { text: string; entries: number } {
  const lines = ["#EXTM3U"];
  let size = 8;
  let i = 0;
  while (size < bytes) {
    const entry = `#EXTINF:-1 tvg-id="ch${i}.test" tvg-name="Channel ${i}" tvg-logo="http://127.0.0.1:9/logo/${i}.png" group-title="Group ${i % 40}",Channel ${i}\r\nhttp://127.0.0.1:9/live/${i}/index.m3u8`;
    lines.push(entry);
    size += entry.length + 2;
    i++;
  }
  return { text: `${lines.join("\r\n")}\r\n`, entries: i };
}

/**
 * The gateway's longest event-loop delay (ms) since the last call: prom-client's
 * `svc_nodejs_eventloop_lag_max_seconds` (`perf_hooks.monitorEventLoopDelay` inside the
 * process, reset at each scrape of `/metrics`). Measured in the gateway itself, it is the
 * longest synchronous block there plus any time the busy machine did not run the process.
 */
async function loopDelayMaxMs(base: string): Promise<number> {
  const r = await fetch(`${base}/metrics`);
  const text = await r.text();
  const m = /^svc_nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text);
  assert.ok(m !== null, "no svc_nodejs_eventloop_lag_max_seconds in /metrics");
  return Number(m[1]) * 1000;
}

/** POSTs `body` to the import on a fresh connection; the answer and how long it took. */
async function postImport(base: string, token: string, body: string) {
  const t0 = performance.now();
  // On a fresh connection: a pooled one may have passed the gateway's 5 s keep-alive while
  // the playlist was built, and a POST on a connection closing under it is not retried.
  const up = openUpload(base, IMPORT, {
    authorization: `Bearer ${token}`,
    "content-length": String(Buffer.byteLength(body)),
  });
  up.req.removeHeader("transfer-encoding");
  up.req.end(body);
  const answer = await up.answer;
  return { status: answer.status, text: answer.text, ms: performance.now() - t0 };
}

/**
 * `GET /healthz` in a loop from a child process: its latencies (ms) come back on `stop()`.
 * The child has nothing else to do, so a slow answer is the gateway's, not the test's.
 */
function startHealthProbe(base: string) {
  const script = `
    const url = ${JSON.stringify(`${base}/healthz`)};
    const latencies = [];
    let running = true;
    process.stdin.on("end", () => { running = false; });
    process.stdin.resume();
    const errors = [];
    (async () => {
      while (running) {
        const t0 = performance.now();
        try {
          const res = await fetch(url);
          await res.arrayBuffer();
          if (res.status !== 200) errors.push("status " + res.status);
        } catch (err) {
          // A held loop lets keep-alive and request timers fire late: the check is dropped.
          errors.push(String(err.cause ?? err));
        }
        latencies.push(performance.now() - t0);
        if (latencies.length === 1) process.stderr.write("started\\n");
        await new Promise((r) => setTimeout(r, 10));
      }
      process.stdout.write(JSON.stringify({ latencies, errors }));
    })();
  `;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (c: Buffer) => {
    out += c.toString();
  });
  const started = new Promise<void>((resolve) => child.stderr.once("data", () => resolve()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  return {
    started,
    async stop(): Promise<{ latencies: number[]; errors: string[] }> {
      child.stdin.end();
      assert.equal(await exited, 0, "the health probe failed");
      return JSON.parse(out) as { latencies: number[]; errors: string[] };
    },
  };
}

describe("M3U import hardening (issue 30)", () => {
  let full: FullGateway;
  const channelCount = async () =>
    (await requestJson(`${full.base}/v1/admin/channels`, { token: full.admin })).body.channels
      .length as number;

  before(async () => {
    full = await startFull({ security: { max_body_bytes: MAX_BODY } });
  });
  after(async () => {
    await full?.gw.stop();
  });

  it("a 32 MiB import never holds the event loop: /healthz keeps answering during the preview", async () => {
    const { text, entries } = playlistOf(29 * MAX_BODY);
    const body = JSON.stringify({ content: text, apply: false });
    assert.ok(Buffer.byteLength(body) <= IMPORT_CEILING, `body ${Buffer.byteLength(body)} bytes`);
    assert.ok(Buffer.byteLength(body) > IMPORT_CEILING - 2 * MAX_BODY);
    // Health checks from another process (this one is busy sending the body and reading the
    // 20 MB answer), one after the other on one connection, for as long as the import runs.
    const probe = startHealthProbe(full.base);
    await probe.started;
    await loopDelayMaxMs(full.base);
    const t0 = performance.now();
    // On a fresh connection: a pooled one may have passed the gateway's 5 s keep-alive while
    // the playlist was built, and a POST on a connection closing under it is not retried.
    const up = openUpload(full.base, IMPORT, {
      authorization: `Bearer ${full.admin}`,
      "content-length": String(Buffer.byteLength(body)),
    });
    up.req.removeHeader("transfer-encoding");
    up.req.end(body);
    const answer = await up.answer;
    const r = { status: answer.status, text: answer.text, body: JSON.parse(answer.text) };
    const importMs = performance.now() - t0;
    const loopMax = await loopDelayMaxMs(full.base);
    const { latencies, errors } = await probe.stop();
    assert.equal(r.status, 200, r.text.slice(0, 300));
    assert.equal(r.body.count, entries);
    assert.equal(r.body.created, entries);
    assert.deepEqual(r.body.entries[entries - 1], {
      line: 2 * entries + 1,
      action: "create",
      id: `ch${entries - 1}.test`,
      title: `Channel ${entries - 1}`,
      url: `http://127.0.0.1:9/live/${entries - 1}/index.m3u8`,
      ingress: "hls",
    });
    const worst = Math.max(...latencies);
    console.log(
      `32 MiB preview: ${entries} entries in ${importMs.toFixed(0)} ms; ${latencies.length} health checks, worst ${worst.toFixed(0)} ms; longest event-loop delay in the gateway ${loopMax.toFixed(0)} ms`,
    );
    // Relative, so that a loaded machine cannot fail it: before the slices, the loop was held
    // for the whole parse, plan and answer, and one health check waited for nearly all of the
    // import; in slices the worst wait is a small part of it (on a quiet machine tens of ms).
    assert.deepEqual(errors, [], "health checks failed during the import");
    assert.ok(latencies.length >= 20, `only ${latencies.length} health checks answered`);
    assert.ok(
      worst < importMs / 4,
      `a health check waited ${worst.toFixed(0)} ms of a ${importMs.toFixed(0)} ms import`,
    );
  });

  it("an unauthenticated chunked 32 MiB import is answered 401 before its body is read", async () => {
    for (const [label, auth, status, code] of [
      ["no credential", undefined, 401, "unauthorized"],
      ["a bad session", "Bearer not-a-jwt", 401, "unauthorized"],
    ] as const) {
      const up = openUpload(full.base, IMPORT, auth === undefined ? {} : { authorization: auth });
      // One 64 KiB chunk of a 32 MiB body, then the client waits: the gateway must answer now,
      // not after reading (and buffering) the other 31.9 MiB.
      up.req.write(bodyStart(65_536));
      const a = await answerWithin(up.answer, 5_000);
      up.req.destroy();
      assert.notEqual(a, "none", `${label}: no answer while the body was still open`);
      if (a !== "none") assertError(asError(a), status, code);
    }
  });

  it("an API token without the write scope is refused before its body is read", async () => {
    const reader = await createApiToken(full.base, full.admin, ["read"]);
    const up = openUpload(full.base, IMPORT, { authorization: `Bearer ${reader.token}` });
    up.req.write(bodyStart(65_536));
    const a = await answerWithin(up.answer, 5_000);
    up.req.destroy();
    assert.notEqual(a, "none", "no answer while the body was still open");
    if (a !== "none") assertError(asError(a), 403, "missing_scope");
  });

  it("an admin's chunked body is cut at the ceiling while it streams: 413, nothing written", async () => {
    const before = await channelCount();
    const up = openUpload(full.base, IMPORT, { authorization: `Bearer ${full.admin}` });
    // One byte past the ceiling, and the upload stays open: the 413 must come without the end.
    up.req.write(bodyStart(IMPORT_CEILING + 1));
    const a = await answerWithin(up.answer, 10_000);
    up.req.destroy();
    assert.notEqual(a, "none", "no answer at the ceiling while the body was still open");
    if (a !== "none") assertError(asError(a), 413, "invalid_request");
    assert.equal(await channelCount(), before);
  });

  it("a body far beyond the ceiling gets a 413 the client reads, streamed or declared", async () => {
    const before = await channelCount();
    const piece = Buffer.alloc(1 << 20, 0x20);
    for (const declared of [false, true]) {
      const total = 4 * IMPORT_CEILING; // 128 MiB
      const up = openUpload(full.base, IMPORT, {
        authorization: `Bearer ${full.admin}`,
        ...(declared ? { "content-length": String(total), "transfer-encoding": "" } : {}),
      });
      if (declared) up.req.removeHeader("transfer-encoding");
      // The client keeps sending as fast as the gateway takes it, as a naive uploader does.
      let sent = 0;
      let stopped = false;
      const stop = () => {
        stopped = true;
      };
      up.answer.then(stop, stop);
      const pump = async () => {
        up.req.write(bodyStart(65_536));
        sent += 65_536;
        while (!stopped && sent < total && !up.req.destroyed) {
          const more = up.req.write(piece);
          sent += piece.length;
          if (!more)
            await new Promise<void>((resolve) => {
              const go = () => {
                up.req.off("drain", go).off("close", go);
                resolve();
              };
              up.req.on("drain", go).on("close", go);
            });
        }
      };
      void pump().catch(() => {});
      const a = await up.answer;
      up.req.destroy();
      assertError(asError(a), 413, "invalid_request");
    }
    assert.equal(await channelCount(), before);
  });

  // Last in the suite: it leaves ~165,000 channels in the catalog.
  it("a 32 MiB apply writes in slices: /healthz keeps answering, all or nothing", async () => {
    // Counted before the playlist is built: building it holds this process for seconds on a
    // loaded machine, and a pooled connection can then meet the gateway's 5 s keep-alive close.
    const before = await channelCount();
    const { text, entries } = playlistOf(29 * MAX_BODY);
    const apply = JSON.stringify({ content: text, apply: true });
    // The same import as a preview: the apply adds the write of every channel (seconds).
    const preview = await postImport(
      full.base,
      full.admin,
      apply.replace(/"apply":true}$/, '"apply":false}'),
    );
    assert.equal(preview.status, 200, preview.text.slice(0, 300));
    const probe = startHealthProbe(full.base);
    await probe.started;
    await loopDelayMaxMs(full.base);
    const r = await postImport(full.base, full.admin, apply);
    const loopMax = await loopDelayMaxMs(full.base);
    const { latencies, errors } = await probe.stop();
    assert.equal(r.status, 200, r.text.slice(0, 300));
    const answered = JSON.parse(r.text);
    assert.equal(answered.count, entries);
    assert.equal(answered.created, entries);
    const writeMs = r.ms - preview.ms;
    const worst = Math.max(...latencies);
    console.log(
      `32 MiB apply: ${entries} entries in ${r.ms.toFixed(0)} ms (preview ${preview.ms.toFixed(0)} ms); ${latencies.length} health checks, worst ${worst.toFixed(0)} ms; longest event-loop delay in the gateway ${loopMax.toFixed(0)} ms`,
    );
    // Relative, so that a loaded machine cannot fail it. One synchronous transaction held the
    // loop for the whole write: one health check waited about three quarters of what the apply
    // took beyond its preview, and a quarter of the whole apply (1,964 ms of 2,684 and 7,913 on
    // a loaded machine). In slices the worst waits are the parts an import still does in one
    // piece (the body's whole-text copies, as in the preview): under a tenth of the apply.
    assert.deepEqual(errors, [], "health checks failed during the apply");
    assert.ok(latencies.length >= 20, `only ${latencies.length} health checks answered`);
    assert.ok(
      worst < Math.max(r.ms / 6, writeMs / 2),
      `a health check waited ${worst.toFixed(0)} ms of a ${r.ms.toFixed(0)} ms apply (${writeMs.toFixed(0)} ms beyond its preview)`,
    );
    // Every channel is stored and listed, the last one whole.
    assert.equal(await channelCount(), before + entries);
    const last = await requestJson(`${full.base}/v1/admin/channels/ch${entries - 1}.test`, {
      token: full.admin,
    });
    assert.equal(last.status, 200);
    assert.equal(last.body.channel.title, `Channel ${entries - 1}`);
    assert.equal(last.body.channel.source_url, `http://127.0.0.1:9/live/${entries - 1}/index.m3u8`);
    assert.equal(last.body.revision, 1);
    // Spec "Import and export": renaming every channel without the preview's revisions is a
    // 409 and writes nothing.
    const renamed = JSON.stringify({
      content: text.replaceAll(",Channel ", ",Renamed "),
      apply: true,
    });
    const conflict = await postImport(full.base, full.admin, renamed);
    assertError(
      asError({ status: conflict.status, headers: {}, text: conflict.text }),
      409,
      "conflict",
    );
    assert.equal(await channelCount(), before + entries);
    for (const i of [0, entries - 1]) {
      const c = await requestJson(`${full.base}/v1/admin/channels/ch${i}.test`, {
        token: full.admin,
      });
      assert.deepEqual([c.body.channel.title, c.body.revision], [`Channel ${i}`, 1]);
    }
  });
});
