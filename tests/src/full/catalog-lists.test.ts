import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { startGateway, tempDir } from "../harness/gateway-process.js";
import { login } from "../harness/http-client.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";

// Issue 36 item 3: the catalog-sized answers (admin channel list, M3U export,
// /v1/playlist.m3u of both builds) stream, byte for byte as they were built whole, in
// bounded memory. Figures and the bench: docs/benchmarks.md "Channel lists at catalog scale".

/** Peak RSS growth allowed per answer at 40,000 channels. The whole-answer code measured
 * 221 MiB (admin list), 65 MiB (export), 109 MiB (playlist), 111 MiB (lite playlist); the
 * streamed answers 1-8 MiB. RSS growth does not depend on the machine's load. */
const GROWTH_BOUND_MIB = 40;
const LARGE = 40_000;

interface ListedChannel {
  id: string;
  title: string;
  group: string;
  logo_url: string;
  epg_id: string;
  epg_name: string;
  disabled: boolean;
}

/** Config channels; `tricky` adds the values that escape (quotes, line breaks, non-ASCII). */
function catalog(n: number, tricky: boolean) {
  return Array.from({ length: n }, (_, i) => ({
    id: `ch${String(i).padStart(5, "0")}`,
    title: tricky && i % 3 === 0 ? `Kanal "${i}", Übertragung 📺` : `Channel ${i} HD`,
    group: i % 4 === 0 ? "" : `Group ${tricky ? '"q"' : ""}${i % 50}`,
    logo_url: i % 5 === 0 ? "" : `http://127.0.0.1:9/logo/${i}.png`,
    epg_id: `ch${i}.test`,
    epg_name: i % 2 === 0 ? "" : `Channel ${i}`,
    ingress: "hls",
    source_url: `http://127.0.0.1:9/live/${i}/index.m3u8?token=t${i}`,
    disabled: i % 9 === 0,
    ...(i % 10 === 0 ? { headers: { Authorization: `Bearer secret-${i}`, "X-Plain": "p" } } : {}),
  }));
}

/** The M3U the gateway rendered whole before it streamed, from the admin list's channels. */
function referencePlaylist(
  channels: readonly ListedChannel[],
  form: { tvgId: (c: ListedChannel) => string; logo: (c: ListedChannel) => string },
  url: (c: ListedChannel) => string,
): string {
  const attr = (v: string) => v.replace(/["\r\n]/g, " ");
  let out = "#EXTM3U\n";
  for (const c of channels) {
    if (c.disabled) continue;
    const logo = form.logo(c);
    out += `#EXTINF:-1 tvg-id="${attr(form.tvgId(c))}" tvg-name="${attr(c.epg_name || c.title)}"`;
    if (logo !== "") out += ` tvg-logo="${attr(logo)}"`;
    if (c.group !== "") out += ` group-title="${attr(c.group)}"`;
    out += `,${c.title.replace(/[\r\n]+/g, " ")}\n${url(c)}\n`;
  }
  return out;
}

function kib(pid: number, key: string): number {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(text)?.[1]);
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** Peak RSS during the answer minus the RSS before it, MiB. */
  growthMib: number;
}

/** One request, its body read as it comes, with the gateway's peak RSS growth meanwhile. */
async function measured(pid: number, url: string, init: RequestInit = {}): Promise<Answer> {
  const before = kib(pid, "VmRSS");
  // Resets VmHWM to the current RSS (proc(5) clear_refs "5"): the start's peak is not counted.
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, kib(pid, "VmRSS"));
  }, 10);
  try {
    const res = await fetch(url, init);
    const text = await res.text();
    peak = Math.max(peak, kib(pid, "VmHWM"));
    return { status: res.status, headers: res.headers, text, growthMib: (peak - before) / 1024 };
  } finally {
    clearInterval(sampler);
  }
}

/** Checks the three answers of a full gateway against the references; returns their growth. */
async function checkFullAnswers(
  start: () => Promise<{ url: string; pid: number; stop: () => Promise<unknown> }>,
  expected: { count: number; chunked: boolean },
): Promise<Record<string, number>> {
  const growth: Record<string, number> = {};
  // A fresh process per answer: what one answer left in the heap is not the next one's.
  const each = async (run: (url: string, token: string, pid: number) => Promise<void>) => {
    const gw = await start();
    try {
      const token = await login(gw.url, "admin", ADMIN_PASSWORD);
      await new Promise((r) => setTimeout(r, 500));
      await run(gw.url, token, gw.pid);
    } finally {
      await gw.stop();
    }
  };
  const framing = (a: Answer) => {
    assert.equal(a.headers.get("content-length") === null, expected.chunked);
    if (!expected.chunked)
      assert.equal(a.headers.get("content-length"), String(Buffer.byteLength(a.text)));
  };
  let listed: ListedChannel[] = [];
  await each(async (url, token, pid) => {
    const a = await measured(pid, `${url}/v1/admin/channels`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(a.status, 200);
    assert.equal(a.headers.get("content-type"), "application/json");
    assert.equal(a.headers.get("cache-control"), "no-store, no-cache, must-revalidate");
    assert.ok(a.headers.get("x-request-id"));
    framing(a);
    const body = JSON.parse(a.text) as { channels: (ListedChannel & Record<string, unknown>)[] };
    // The bytes are JSON.stringify's of the same value: no spacing, same key order.
    assert.equal(a.text, JSON.stringify(body));
    assert.equal(body.channels.length, expected.count);
    assert.deepEqual(Object.keys(body.channels[0]!), [
      ...["id", "title", "group", "logo_url", "epg_id", "epg_name", "epg_source", "ingress"],
      ...["on_demand", "autostart", "source_url", "upstream", "path", "disabled"],
      ...["prefer_height", "preferred_audio_languages", "sort_order", "revision", "play_url"],
      ...["headers", "user_agent", "max_viewers", "engine", "keys", "updated_at"],
    ]);
    assert.deepEqual(body.channels[0]!.headers, { Authorization: "", "X-Plain": "p" });
    assert.equal(body.channels[1]!.play_url, `${url}/v1/play/ch00001/index.m3u8`);
    listed = body.channels;
    growth["GET /v1/admin/channels"] = a.growthMib;
  });
  await each(async (url, token, pid) => {
    const a = await measured(pid, `${url}/v1/admin/exports/m3u`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(a.status, 201);
    assert.equal(a.headers.get("content-type"), "application/vnd.apple.mpegurl");
    assert.equal(a.headers.get("content-disposition"), 'attachment; filename="svc-playlist.m3u"');
    framing(a);
    const key = /\/p\/(v1[0-9A-Za-z]{126})\/play\//.exec(a.text)?.[1];
    assert.ok(key, "a playback key in the play URLs");
    const reference = referencePlaylist(
      listed,
      { tvgId: (c) => c.id, logo: (c) => c.logo_url || `${url}/v1/logo/${c.id}` },
      (c) => `${url}/p/${key}/play/${c.id}/index.m3u8`,
    );
    assert.equal(a.text, reference);
    growth["POST /v1/admin/exports/m3u"] = a.growthMib;
  });
  await each(async (url, token, pid) => {
    const a = await measured(pid, `${url}/v1/playlist.m3u?token=${token}`);
    assert.equal(a.status, 200);
    assert.equal(a.headers.get("content-type"), "application/vnd.apple.mpegurl");
    framing(a);
    const reference = referencePlaylist(
      listed,
      { tvgId: (c) => c.epg_id, logo: (c) => c.logo_url },
      (c) => `${url}/v1/play/${c.id}/index.m3u8?token=${token}`,
    );
    assert.equal(a.text, reference);
    growth["GET /v1/playlist.m3u"] = a.growthMib;
  });
  return growth;
}

async function checkLitePlaylist(channels: ReturnType<typeof catalog>, chunked: boolean) {
  const gw = await startGateway("lite", { auth: authSection(), channels }, { timeoutMs: 180_000 });
  try {
    const token = await login(gw.url, "admin", ADMIN_PASSWORD);
    await new Promise((r) => setTimeout(r, 500));
    const a = await measured(gw.proc.pid!, `${gw.url}/v1/playlist.m3u?token=${token}`);
    assert.equal(a.status, 200);
    assert.equal(a.headers.get("content-type"), "application/vnd.apple.mpegurl");
    assert.equal(a.headers.get("content-length") === null, chunked);
    const reference = referencePlaylist(
      channels,
      { tvgId: (c) => c.epg_id, logo: (c) => c.logo_url },
      (c) => `${gw.url}/v1/play/${c.id}/index.m3u8?token=${token}`,
    );
    assert.equal(a.text, reference);
    return a.growthMib;
  } finally {
    await gw.stop();
  }
}

/** A full gateway on `dir`'s database: the catalog comes from the first start's import. */
function fullOn(dir: string) {
  return async () => {
    const gw = await startGateway("full", { auth: authSection() }, { dir, timeoutMs: 180_000 });
    return { url: gw.url, pid: gw.proc.pid!, stop: () => gw.stop() };
  };
}

async function seed(dir: string, channels: ReturnType<typeof catalog>) {
  const gw = await startGateway(
    "full",
    { auth: authSection(), channels },
    { dir, timeoutMs: 180_000 },
  );
  await gw.stop();
}

describe("catalog answers, small catalog (one chunk: Content-Length kept)", () => {
  const dir = tempDir("svc-catalog-small-");
  const channels = catalog(12, true);
  before(() => seed(dir, channels));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("admin list, export and playlist are the whole-answer bytes", {
    timeout: 120_000,
  }, async () => {
    await checkFullAnswers(fullOn(dir), { count: 12, chunked: false });
  });
  it("the lite playlist is the whole-answer bytes", { timeout: 120_000 }, async () => {
    await checkLitePlaylist(channels, false);
  });
});

describe(`catalog answers, ${LARGE.toLocaleString("en")} channels: streamed in bounded memory`, () => {
  const dir = tempDir("svc-catalog-large-");
  const channels = catalog(LARGE, false);
  before(() => seed(dir, channels), { timeout: 300_000 });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it(`full build: each answer grows RSS by less than ${GROWTH_BOUND_MIB} MiB`, {
    timeout: 600_000,
  }, async () => {
    const growth = await checkFullAnswers(fullOn(dir), { count: LARGE, chunked: true });
    for (const [answer, mib] of Object.entries(growth)) {
      process.stdout.write(`# ${answer}, ${LARGE} channels: RSS growth ${mib.toFixed(1)} MiB\n`);
      assert.ok(mib < GROWTH_BOUND_MIB, `${answer}: RSS grew ${mib.toFixed(1)} MiB`);
    }
  });
  it(`lite build: /v1/playlist.m3u grows RSS by less than ${GROWTH_BOUND_MIB} MiB`, {
    timeout: 300_000,
  }, async () => {
    const mib = await checkLitePlaylist(channels, true);
    process.stdout.write(
      `# lite GET /v1/playlist.m3u, ${LARGE} channels: RSS growth ${mib.toFixed(1)} MiB\n`,
    );
    assert.ok(mib < GROWTH_BOUND_MIB, `lite playlist: RSS grew ${mib.toFixed(1)} MiB`);
  });
});
