import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { FullGateway } from "../full/full-fixture.js";
import { startFull } from "../full/full-fixture.js";
import { requestJson } from "../harness/http-client.js";
import { repoRoot } from "../harness/paths.js";
import { hlsChannel } from "./guide-checks.js";
import { type GuideOrigin, startGuideOrigin } from "./guide-origin.js";

/**
 * Issue 32 item 2: the labelled matching set (tests/fixtures/guide-matching/,
 * derived from iptv-org/database) run through the full binary: its guide side
 * served as one XMLTV document from a loopback origin, its playlist-side names
 * as gateway channels, and `GET /v1/admin/epg/matches` compared with the labels.
 * Targets: ≥ 98 % precision of automatic matches, ≥ 90 % recall.
 */
interface LabelledSet {
  guide: { id: string; names: string[] }[];
  cases: { title: string; epg_id?: string; expect: string[]; kind: string }[];
}
const set: LabelledSet = JSON.parse(
  readFileSync(join(repoRoot, "tests", "fixtures", "guide-matching", "labelled-set.json"), "utf8"),
);

const esc = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

/** The guide side as XMLTV: a <channel> per named guide channel, one programme each. */
function guideXml(): string {
  const parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<tv>\n'];
  for (const g of set.guide) {
    if (g.names.length === 0) continue;
    parts.push(`<channel id="${esc(g.id)}">`);
    for (const n of g.names) parts.push(`<display-name>${esc(n)}</display-name>`);
    parts.push("</channel>\n");
  }
  for (const g of set.guide)
    parts.push(
      `<programme start="20260101000000 +0000" stop="20260101010000 +0000" channel="${esc(g.id)}"><title>Show</title></programme>\n`,
    );
  parts.push("</tv>\n");
  return parts.join("");
}

describe("guide: matching against the labelled set (issue 32 item 2)", { timeout: 300_000 }, () => {
  let origin: GuideOrigin;
  let f: FullGateway;
  let matches: Map<string, any>;

  before(async () => {
    origin = await startGuideOrigin();
    origin.routes.set("/guide.xml", { body: guideXml() });
    f = await startFull({
      channels: set.cases.map((c, i) =>
        hlsChannel(`m${i}.test`, c.title, c.epg_id === undefined ? {} : { epg_id: c.epg_id }),
      ),
      security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
      guide: { refresh_interval_min: 10_000, logo_repositories: [] },
    });
    const admin = (p: string, init: Parameters<typeof requestJson>[1] = {}) =>
      requestJson(`${f.base}${p}`, { token: f.admin, ...init });
    const c = await admin("/v1/admin/epg/sources", {
      body: { id: "iptvorg", url: `${origin.url}/guide.xml` },
    });
    assert.equal(c.status, 201, c.text);
    const r = await admin("/v1/admin/epg/refresh", { method: "POST" });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.statuses[0].error, null);
    const m = await admin("/v1/admin/epg/matches");
    assert.equal(m.status, 200);
    matches = new Map(m.body.matches.map((x: any) => [x.channel_id, x]));
  });
  after(async () => {
    await f?.gw.stop();
    await origin?.close();
  });

  it("automatic matches: precision ≥ 98 %, recall ≥ 90 % (printed per kind)", () => {
    let tp = 0;
    let fp = 0;
    let positives = 0;
    const byKind = new Map<string, { n: number; right: number; wrong: number }>();
    const wrong: string[] = [];
    set.cases.forEach((c, i) => {
      const m = matches.get(`m${i}.test`);
      assert.ok(m, `m${i}.test is listed`);
      const got: string | null = m.status === "matched" ? m.match.epg_id : null;
      const k = byKind.get(c.kind) ?? { n: 0, right: 0, wrong: 0 };
      k.n++;
      if (c.expect.length > 0) positives++;
      if (got !== null && c.expect.includes(got)) {
        tp++;
        k.right++;
      } else if (got !== null) {
        fp++;
        k.wrong++;
        if (wrong.length < 15)
          wrong.push(
            `  "${c.title}" → ${got} (${m.match.reason}), want ${c.expect.join("|") || "none"}`,
          );
      } else if (c.expect.length === 0) k.right++;
      byKind.set(c.kind, k);
    });
    const precision = tp / (tp + fp);
    const recall = tp / positives;
    const pct = (x: number) => `${(x * 100).toFixed(2)} %`;
    console.log(
      `labelled set: ${set.cases.length} cases, ${positives} with a right guide channel; ` +
        `automatic matches ${tp + fp}: precision ${pct(precision)}, recall ${pct(recall)}`,
    );
    for (const [kind, k] of byKind)
      console.log(`  ${kind}: ${k.n} cases, ${k.right} right, ${k.wrong} wrong automatic matches`);
    if (wrong.length > 0)
      console.log(`wrong automatic matches (first ${wrong.length}):\n${wrong.join("\n")}`);
    assert.ok(precision >= 0.98, `precision ${pct(precision)}`);
    assert.ok(recall >= 0.9, `recall ${pct(recall)}`);
  });

  it("a match says why; a fuzzy score below the threshold is only offered", () => {
    const reasons = new Set(["exact_id", "exact_name", "lcn", "id_name", "fuzzy"]);
    let offered = 0;
    set.cases.forEach((c, i) => {
      const m = matches.get(`m${i}.test`);
      if (m.match !== undefined) {
        assert.ok(reasons.has(m.match.reason), JSON.stringify(m.match));
        if (m.match.reason === "fuzzy") assert.ok(m.match.score >= 0.9, JSON.stringify(m.match));
        else assert.equal(m.match.score, 1);
        if (c.epg_id !== undefined) assert.equal(m.match.reason, "exact_id");
      }
      for (const cand of m.candidates) {
        assert.ok(reasons.has(cand.reason), JSON.stringify(cand));
        assert.ok(cand.score > 0 && cand.score <= 1);
        if (m.status === "unmatched" && cand.reason === "fuzzy") offered++;
      }
      // A "+1" feed the guide lacks is never matched to the live channel.
      if (c.kind === "timeshift-absent") assert.equal(m.status, "unmatched", c.title);
    });
    assert.ok(offered > 0, "unmatched channels are offered fuzzy candidates");
  });
});
