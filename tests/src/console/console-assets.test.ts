import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, describe, it } from "node:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { Validator } from "@seriousme/openapi-schema-validator";
import { ERROR_STATUS } from "@svc/core/errors";
import { type FullGateway, startFull } from "../full/full-fixture.js";
import { SPEC_ROUTES } from "../harness/spec-routes.js";

/** The budget for the console's first load. */
const FIRST_LOAD_JS_BUDGET = 150 * 1024;

/** A raw GET (node:http): fetch would decode Content-Encoding, and the bytes are under test. */
function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === "string") h.set(k, v);
        resolve({ status: res.statusCode ?? 0, headers: h, bytes: Buffer.concat(chunks) });
      });
    })
      .on("error", reject)
      .end();
  });
}

describe("console assets and the OpenAPI document (full build)", () => {
  let full: FullGateway;
  let shell: string;
  before(async () => {
    full = await startFull();
    shell = (await get(`${full.base}/admin`)).bytes.toString("utf8");
  });
  after(async () => {
    await full.gw.stop();
  });

  /** Asset paths the shell references (`/admin/assets/…`). */
  const referenced = () =>
    [...shell.matchAll(/(?:src|href)="(\/admin\/assets\/[^"]+)"/g)].map((m) => m[1]!);

  it("serves the shell at /admin and /admin/ with no-store and the strict CSP", async () => {
    for (const path of ["/admin", "/admin/"]) {
      const r = await get(`${full.base}${path}`);
      assert.equal(r.status, 200);
      assert.match(r.headers.get("content-type") ?? "", /^text\/html/);
      assert.equal(r.headers.get("cache-control"), "no-store");
      assert.equal(r.headers.get("x-frame-options"), "DENY");
      const csp = r.headers.get("content-security-policy") ?? "";
      for (const d of [
        "default-src 'self'",
        "frame-ancestors 'none'",
        "object-src 'none'",
        "base-uri 'none'",
        "media-src 'self' blob:",
      ])
        assert.ok(csp.includes(d), `${d} in ${csp}`);
      assert.ok(!csp.includes("unsafe-inline") && !csp.includes("unsafe-eval"), csp);
      const html = r.bytes.toString("utf8");
      assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, "no inline script");
      assert.doesNotMatch(html, /<style|\sstyle=/, "no inline style");
    }
    assert.ok(referenced().some((p) => p.endsWith(".js")));
    assert.ok(referenced().some((p) => p.endsWith(".css")));
  });

  it("serves hashed assets immutable, precompressed by Accept-Encoding, with a strong ETag and 304", async () => {
    for (const path of referenced()) {
      const plain = await get(`${full.base}${path}`, { "accept-encoding": "identity" });
      assert.equal(plain.status, 200, path);
      assert.equal(plain.headers.get("cache-control"), "public, max-age=31536000, immutable");
      assert.equal(plain.headers.get("content-encoding"), null);
      assert.equal(plain.headers.get("vary"), "Accept-Encoding");
      const gz = await get(`${full.base}${path}`, { "accept-encoding": "gzip" });
      assert.equal(gz.headers.get("content-encoding"), "gzip");
      assert.ok(gunzipSync(gz.bytes).equals(plain.bytes), "gzip decodes to the file");
      const br = await get(`${full.base}${path}`, { "accept-encoding": "gzip, deflate, br" });
      assert.equal(br.headers.get("content-encoding"), "br");
      assert.ok(brotliDecompressSync(br.bytes).equals(plain.bytes), "brotli decodes to the file");
      const noBr = await get(`${full.base}${path}`, { "accept-encoding": "br;q=0, gzip" });
      assert.equal(noBr.headers.get("content-encoding"), "gzip", "q=0 refuses a coding");
      const etag = gz.headers.get("etag") ?? "";
      assert.match(etag, /^"[A-Za-z0-9_-]+"$/, "strong ETag");
      assert.notEqual(etag, plain.headers.get("etag"), "one ETag per representation");
      const again = await get(`${full.base}${path}`, {
        "accept-encoding": "gzip",
        "if-none-match": etag,
      });
      assert.equal(again.status, 304);
      assert.equal(again.bytes.length, 0);
      assert.equal(again.headers.get("etag"), etag);
      const other = await get(`${full.base}${path}`, {
        "accept-encoding": "gzip",
        "if-none-match": '"something-else"',
      });
      assert.equal(other.status, 200);
    }
    const missing = await get(`${full.base}/admin/assets/no-such-file.js`);
    assert.equal(missing.status, 404);
    assert.equal(JSON.parse(missing.bytes.toString()).error.code, "not_found");
  });

  it(`keeps the first load under ${FIRST_LOAD_JS_BUDGET / 1024} KB of compressed JS`, async () => {
    let gzip = 0;
    let brotli = 0;
    for (const path of referenced().filter((p) => p.endsWith(".js"))) {
      gzip += (await get(`${full.base}${path}`, { "accept-encoding": "gzip" })).bytes.length;
      brotli += (await get(`${full.base}${path}`, { "accept-encoding": "br" })).bytes.length;
    }
    process.stdout.write(`# console first-load JS: ${gzip} bytes gzip, ${brotli} bytes brotli\n`);
    assert.ok(gzip > 5_000, "the app is there");
    assert.ok(gzip < FIRST_LOAD_JS_BUDGET, `${gzip} bytes gzip`);
    // hls.js is not part of the first load: the shell references no chunk holding it.
    assert.ok(!referenced().some((p) => /hls/.test(p)), referenced().join(" "));
  });

  it("serves an OpenAPI 3.1 document that validates and covers every route, scope and error code", async () => {
    const r = await get(`${full.base}/admin/assets/openapi.json`, { "accept-encoding": "gzip" });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("cache-control"), "no-cache");
    assert.match(r.headers.get("etag") ?? "", /^"/);
    const doc = JSON.parse(gunzipSync(r.bytes).toString("utf8"));
    assert.equal(doc.openapi, "3.1.0");
    const validator = new Validator();
    const verdict = await validator.validate(doc);
    assert.equal(verdict.valid, true, JSON.stringify(verdict.errors, null, 1));

    const ops: { method: string; route: string; op: any }[] = [];
    for (const [, item] of Object.entries<any>(doc.paths))
      for (const [method, op] of Object.entries<any>(item))
        ops.push({ method: method.toUpperCase(), route: op["x-route-path"], op });
    assert.equal(ops.length, SPEC_ROUTES.length, "one operation per route");
    assert.equal(SPEC_ROUTES.length, 69);
    for (const row of SPEC_ROUTES) {
      const found = ops.find((o) => o.method === row.method && o.route === row.path);
      assert.ok(found, `${row.method} ${row.path} missing`);
      assert.equal(found.op["x-required-scope"], row.scope, `${row.method} ${row.path} scope`);
      assert.equal(found.op["x-credential"], row.credential);
      if (row.scope !== null)
        assert.ok(
          found.op.security.some((s: any) => s.apiToken?.[0] === row.scope),
          `${row.method} ${row.path}: apiToken scope`,
        );
    }
    const codes = Object.keys(ERROR_STATUS).sort();
    assert.deepEqual(
      [...doc.components.schemas.Error.properties.error.properties.code.enum].sort(),
      codes,
    );
    const used = new Set<string>(["route_not_available"]); // paths outside the table (info.description)
    for (const o of ops)
      for (const [status, resp] of Object.entries<any>(o.op.responses))
        for (const code of resp["x-error-codes"] ?? []) {
          used.add(code);
          assert.ok(codes.includes(code), code);
          assert.ok(Number(status) >= 400, `${code} under ${status}`);
        }
    assert.deepEqual([...used].sort(), codes, "every error code appears");

    // Request bodies come from the routes' valibot schemas: strict objects with their rules.
    const create =
      doc.paths["/v1/admin/channels"].post.requestBody.content["application/json"].schema;
    assert.equal(create.additionalProperties, false);
    assert.deepEqual(create.properties.ingress.enum, ["hls", "dash", "ts"]);
    assert.ok(create.required.includes("id") && create.required.includes("title"));
    const token =
      doc.paths["/v1/admin/api-tokens"].post.requestBody.content["application/json"].schema;
    assert.deepEqual(token.properties.scopes.items.enum, ["read", "write", "delete", "refresh"]);
    assert.equal(token.properties.scopes.minItems, 1);
    const m3u =
      doc.paths["/v1/admin/import/m3u"].post.requestBody.content["application/json"].schema;
    assert.deepEqual(m3u.required, ["content"]);
    const rule =
      doc.paths["/v1/admin/egress/rules"].post.requestBody.content["application/json"].schema;
    assert.ok(rule.properties.kind.enum.includes("host_suffix"));
  });
});
