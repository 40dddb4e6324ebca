import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../harness/gateway-process.js";

export const XMLTV_DTD = "/usr/share/xmltv/xmltv.dtd";

/** A channel body for the admin API; the source is never fetched (port 9 is discard). */
export function hlsChannel(id: string, title: string, extra: Record<string, unknown> = {}) {
  return { id, title, ingress: "hls", source_url: `http://127.0.0.1:9/${id}.m3u8`, ...extra };
}

/** Writes `xml` to a temp file and returns its path once xmllint validates it against the XMLTV DTD. */
export function assertDtdValid(xml: string): string {
  const file = join(tempDir("svc-epg-"), "epg.xml");
  writeFileSync(file, xml);
  const r = spawnSync("xmllint", ["--noout", "--nonet", "--dtdvalid", XMLTV_DTD, file], {
    encoding: "utf8",
  });
  assert.equal(r.status, 0, `xmllint --dtdvalid failed:\n${r.stderr}`);
  return file;
}
