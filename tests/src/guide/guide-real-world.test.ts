import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { FullGateway } from "../full/full-fixture.js";
import { startFull } from "../full/full-fixture.js";
import { requestJson } from "../harness/http-client.js";
import { repoRoot } from "../harness/paths.js";
import { assertDtdValid, hlsChannel as ch, XMLTV_DTD } from "./guide-checks.js";
import { type GuideOrigin, startGuideOrigin } from "./guide-origin.js";

/**
 * Issue 32 item 1: real-world-shaped XMLTV documents (tests/fixtures/xmltv/),
 * each refreshed by the full binary from a loopback origin, and epg.xml
 * compared programme by programme (channel, UTC start, stop or none, titles
 * with their lang) with what the source says, worked out by hand below.
 */
const fixture = (name: string) => readFileSync(join(repoRoot, "tests", "fixtures", "xmltv", name));

/** Source id → fixture file and time zone. */
const SOURCES: Record<string, { file: string; timezone?: string }> = {
  nostop: { file: "no-stop.xml" },
  bare: { file: "no-channels.xml" },
  times: { file: "times.xml", timezone: "America/New_York" },
  messy: { file: "messy.xml" },
  empty: { file: "nothing-usable.xml" },
};

// Gateway channel ids are RFC 2838-style (`name.domain`), as tv_validate_file wants.
const CHANNELS = [
  ch("yle1.test", "Yle 1", { epg_id: "yle1.fi", epg_source: "nostop" }),
  ch("mtv3.test", "MTV 3", { epg_id: "mtv3.fi", epg_source: "nostop" }),
  ch("ard.test", "ARD", { epg_id: "DasErste.de", epg_source: "bare" }),
  ch("rtl.test", "RTL Television", { epg_id: "RTL.de", epg_source: "bare" }),
  ch("digits.test", "Digits TV", { epg_id: "digits.us", epg_source: "times" }),
  ch("offsets.test", "Offsets TV", { epg_id: "offsets.us", epg_source: "times" }),
  ch("zones.test", "Zones TV", { epg_id: "zones.us", epg_source: "times" }),
  // Matched by name: the second display name, the first channel element's
  // second name, the repeated channel element's name, and the <lcn>.
  ch("fox2.test", "KTVU Fox 2 HD"),
  ch("arte.test", "ARTE Deutsch"),
  ch("concert.test", "Arte Concert"),
  ch("lcn77.test", "77"),
];

const ENTITIES: Record<string, string> = {
  "&amp;": "&",
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&apos;": "'",
};
const decode = (s: string) => s.replace(/&(?:amp|lt|gt|quot|apos);/g, (e) => ENTITIES[e]!);

/**
 * The programmes of one channel as `start stop|- lang:title | lang:title`, in
 * document order; times must be written in UTC.
 */
function programmesOf(xml: string, channel: string): string[] {
  const out: string[] = [];
  const re = /<programme start="([^"]+)"(?: stop="([^"]+)")? channel="([^"]+)">(.*?)<\/programme>/g;
  for (const m of xml.matchAll(re)) {
    if (decode(m[3]!) !== channel) continue;
    const utc = (t: string) => {
      assert.match(t, /^\d{14} \+0000$/);
      return t.slice(0, 14);
    };
    const titles = [...m[4]!.matchAll(/<title(?: lang="([^"]*)")?>([^<]*)<\/title>/g)].map(
      (t) => `${t[1] ?? ""}:${decode(t[2]!)}`,
    );
    out.push(`${utc(m[1]!)} ${m[2] === undefined ? "-" : utc(m[2])} ${titles.join(" | ")}`);
  }
  return out;
}

function validate(xml: string): void {
  const file = assertDtdValid(xml);
  const tv = spawnSync("tv_validate_file", ["--dtd-file", XMLTV_DTD, file], { encoding: "utf8" });
  assert.equal(tv.status, 0, `tv_validate_file failed:\n${tv.stdout}${tv.stderr}`);
}

describe("guide: real-world XMLTV read exactly (issue 32 item 1)", () => {
  let origin: GuideOrigin;
  let f: FullGateway;
  let statuses: Map<string, any>;
  let epg: string;
  const admin = (p: string, init: Parameters<typeof requestJson>[1] = {}) =>
    requestJson(`${f.base}${p}`, { token: f.admin, ...init });

  before(async () => {
    origin = await startGuideOrigin();
    for (const { file } of Object.values(SOURCES))
      origin.routes.set(`/${file}`, { body: fixture(file) });
    f = await startFull({
      channels: CHANNELS,
      security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
      guide: { refresh_interval_min: 10_000, logo_repositories: [] },
    });
    for (const [id, { file, timezone }] of Object.entries(SOURCES)) {
      const c = await admin("/v1/admin/epg/sources", {
        body: { id, url: `${origin.url}/${file}`, ...(timezone ? { timezone } : {}) },
      });
      assert.equal(c.status, 201, c.text);
    }
    const r = await admin("/v1/admin/epg/refresh", { method: "POST" });
    assert.equal(r.status, 200, r.text);
    statuses = new Map(r.body.statuses.map((s: any) => [s.source_id, s]));
    const e = await fetch(`${f.base}/v1/epg.xml`);
    assert.equal(e.status, 200);
    epg = await e.text();
  });
  after(async () => {
    await f?.gw.stop();
    await origin?.close();
  });

  it("programmes without stop end where the next starts; a clump keeps both; the last has none", () => {
    assert.equal(statuses.get("nostop").error, null);
    assert.equal(statuses.get("nostop").programme_count, 9);
    assert.deepEqual(programmesOf(epg, "yle1.test"), [
      "20261102040000 20261102070000 fi:Huomenta Suomi",
      "20261102070000 20261102071000 fi:Uutiset | sv:Nyheter",
      "20261102071000 - fi:Puoli seitsemän",
    ]);
    assert.deepEqual(programmesOf(epg, "mtv3.test"), [
      "20261102040000 20261102053000 fi:Aamu",
      "20261102053000 20261102060000 fi:Kauniit ja rohkeat",
      "20261102060000 20261102063000 fi:Salatut elämät",
      "20261102070000 20261102080000 fi:Uutiset ja sää",
      "20261102070000 20261102080000 fi:Sää",
      "20261102100000 - fi:Elokuva",
    ]);
  });

  it("a document without <channel> elements: its programmes reach channels by epg_id; one with nothing usable still fails", async () => {
    const bare = statuses.get("bare");
    assert.equal(bare.error, null);
    assert.equal(bare.channel_count, 2);
    assert.equal(bare.programme_count, 4);
    assert.deepEqual(programmesOf(epg, "ard.test"), [
      "20261110170000 20261110180000 de:Tagesschau",
      "20261110180000 20261110191500 de:Tatort",
    ]);
    assert.deepEqual(programmesOf(epg, "rtl.test"), [
      "20261110170000 20261110173000 de:Explosiv",
      "20261110173000 - de:Exclusiv",
    ]);
    const matches = new Map(
      (await admin("/v1/admin/epg/matches")).body.matches.map((m: any) => [m.channel_id, m]),
    );
    assert.equal((matches.get("ard.test") as any).status, "matched");
    assert.equal((matches.get("ard.test") as any).match.epg_id, "DasErste.de");

    const empty = statuses.get("empty");
    assert.equal(empty.error, "the document holds no channel and no programme");
    assert.equal(empty.available, false);
  });

  it("times: fewer digits, numeric offsets, the source's time zone, zone abbreviations", () => {
    assert.equal(statuses.get("times").error, null);
    assert.equal(statuses.get("times").metadata.skipped_elements, 0);
    assert.deepEqual(programmesOf(epg, "digits.test"), [
      "20260701180000 20260701190000 :Minutes only",
      "20260701190000 20260701200000 :Hours only",
      "20260702000000 20260702010000 :Date only",
      // New York wall time (EDT): midnight is 04:00 UTC.
      "20260703040000 20260703100000 :Local date only",
    ]);
    assert.deepEqual(programmesOf(epg, "offsets.test"), [
      "20260105170000 20260105180000 :New York winter",
      "20260704160000 20260704173000 :New York summer",
      "20260706170000 20260706180000 :Minus five",
      "20260707063000 20260707070000 :Plus five thirty",
      "20260708100000 20260708110000 :Hours offset",
    ]);
    assert.deepEqual(programmesOf(epg, "zones.test"), [
      "20260111200000 20260111210000 :Greenwich",
      "20260114010000 20260114020000 :Eastern",
      "20260114190000 20260114200000 :Central European",
      "20260117040000 20260117050000 :Pacific",
      "20260117090000 20260117100000 :Sydney Summer",
      "20260710190000 20260710200000 :British Summer",
      "20260712200000 20260712210000 :Universal",
      "20260715180000 20260715190000 :Central European Summer",
      "20260719000000 20260719020000 :Eastern Daylight",
    ]);
  });

  it("extensions, CDATA, entities, whitespace and lang variants; duplicates dropped, overlaps kept; every name matches", async () => {
    const messy = statuses.get("messy");
    assert.equal(messy.error, null);
    assert.equal(messy.channel_count, 2);
    assert.equal(messy.metadata.skipped_elements, 0);
    assert.deepEqual(programmesOf(epg, "fox2.test"), [
      "20261201180000 20261201190000 en:The News at Six | es:Las Noticias & el Tiempo",
      "20261201183000 20261201200000 en:Overlapping Special",
      "20261201190000 20261201193000 :Sports Wrap",
      '20261201190000 20261201200000 :Movie: "Up" & Away',
    ]);
    const arte = [
      "20261201191500 20261201204500 fr:L’Été <en direct> | de:Der Sommer | en:Summer",
      "20261201204500 - fr:Tracks",
    ];
    assert.deepEqual(programmesOf(epg, "arte.test"), arte);
    assert.deepEqual(programmesOf(epg, "concert.test"), arte);
    assert.deepEqual(programmesOf(epg, "lcn77.test"), arte);
    assert.ok(
      epg.includes('<desc lang="en">Tonight: &lt;b&gt;storms&lt;/b&gt; &amp; more</desc>'),
      "CDATA text is kept, escaped",
    );
    assert.ok(epg.includes('<sub-title lang="fr">Épisode 1</sub-title>'));
    for (const dropped of ["x-rerun", "pdc-start", "showview", "x-genre-code", "<credits>"])
      assert.ok(!epg.includes(dropped), `${dropped} is not written`);
    const matches = new Map(
      (await admin("/v1/admin/epg/matches")).body.matches.map((m: any) => [m.channel_id, m]),
    );
    for (const [id, epgId] of [
      ["fox2.test", "ktvu.us"],
      ["arte.test", "arte.eu"],
      ["concert.test", "arte.eu"],
      ["lcn77.test", "arte.eu"],
    ]) {
      const m: any = matches.get(id);
      assert.equal(m.status, "matched", `${id}: ${JSON.stringify(m)}`);
      assert.deepEqual(
        [m.match.source_id, m.match.epg_id, m.match.method],
        ["messy", epgId, "name"],
      );
    }
  });

  it("epg.xml of all of them validates with xmllint --dtdvalid and tv_validate_file", () => {
    validate(epg);
    // Every gateway channel has programmes (tv_validate_file would say otherwise).
    for (const c of CHANNELS) assert.ok(programmesOf(epg, c.id).length > 0, c.id);
  });
});
