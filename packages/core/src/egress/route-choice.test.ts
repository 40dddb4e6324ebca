import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { effectiveProxyUrl } from "./proxy-transport.js";
import { compileRouting } from "./route-choice.js";
import { bindingFromSetting, type RoutingDocument } from "./routing-document.js";
import { checkProxyUrl, routingProblems } from "./routing-validation.js";
import { compileRulePattern } from "./rule-pattern.js";

const doc: RoutingDocument = {
  default: "vpn",
  docker_proxy_host: "",
  proxies: [
    { id: "vpn", name: "", url: "socks5://127.0.0.1:1080", disabled: false },
    { id: "web", name: "", url: "http://127.0.0.1:3128", disabled: false },
    { id: "off", name: "", url: "http://127.0.0.1:3129", disabled: true },
  ],
  rules: [
    { id: "cdn", kind: "host_suffix", pattern: "cdn.example", proxy: "direct" },
    { id: "one", kind: "channel_id", pattern: "news", proxy: "web" },
    { id: "exact", kind: "host_exact", pattern: "API.Example.", proxy: "web" },
    { id: "re", kind: "url_regex", pattern: "/live/[0-9]+\\.m3u8$", proxy: "direct" },
    { id: "host", kind: "host_regex", pattern: "^edge-\\d+\\.", proxy: "web" },
  ],
};
const routing = compileRouting(doc);
const pick = (
  url: string,
  channel?: string,
  binding: Parameters<typeof routing.choose>[2] = { mode: "auto" },
) => routing.choose(new URL(url), channel, binding);

describe("route choice", () => {
  for (const [url, channel, proxyId, reason] of [
    ["http://a.cdn.example/x", "news", "direct", "rule cdn"],
    ["http://cdn.example/x", undefined, "direct", "rule cdn"],
    ["http://badcdn.example/x", undefined, "vpn", "default"],
    ["http://other.test/x", "news", "web", "rule one"],
    ["http://api.example/x", undefined, "web", "rule exact"],
    ["http://o.test/live/42.m3u8?x=1", undefined, "vpn", "default"],
    ["http://o.test/live/42.m3u8", undefined, "direct", "rule re"],
    ["http://EDGE-7.o.test/", undefined, "web", "rule host"],
    ["http://u:p@o.test/", "sport", "vpn", "default"],
  ] as const)
    it(`${url} (${channel ?? "-"}) → ${proxyId}`, () => {
      const c = pick(url, channel);
      assert.equal(c.ok, true);
      assert.equal(c.proxyId, proxyId);
      assert.equal(c.reason, reason);
    });

  it("bindings skip the rules; a binding to a missing or disabled profile fails closed", () => {
    assert.equal(
      pick("http://a.cdn.example/", "x", { mode: "profile", profileId: "web" }).proxyId,
      "web",
    );
    assert.equal(pick("http://other.test/", "news", { mode: "direct" }).proxyId, "direct");
    for (const profileId of ["off", "gone"]) {
      const c = pick("http://o.test/", "x", { mode: "profile", profileId });
      assert.equal(c.ok, false);
      assert.ok(!c.ok && c.message.includes(profileId));
    }
  });

  // A backtracking engine needs about 2^50000 steps for this input, so finishing at all
  // proves the linear engine; the generous timeout only turns a stall into a failure
  // (no wall-clock budget that a loaded CI machine could miss).
  it("regex rules run in linear time (RE2): a nested quantifier cannot stall", {
    timeout: 60_000,
  }, () => {
    const p = compileRulePattern("url_regex", "^(a+)+$");
    assert.ok(p.ok);
    assert.equal(p.ok && p.test(`${"a".repeat(50_000)}b`), false);
    for (const bad of ["(a)\\1", "(?=a)", "(?<=a)b", "[", "x".repeat(513)])
      assert.equal(compileRulePattern("url_regex", bad).ok, false, bad);
  });

  it("validates documents and proxy URLs", () => {
    assert.deepEqual(routingProblems(doc), []);
    const problems = routingProblems({
      ...doc,
      default: "off",
      proxies: [...doc.proxies, { id: "Direct", name: "", url: "ftp://x", disabled: false }],
      rules: [...doc.rules, { id: "cdn", kind: "host_regex", pattern: "(", proxy: "nope" }],
    });
    assert.deepEqual(
      problems.map((p) => p.path),
      [
        "proxies[3].id",
        "proxies[3].url",
        "default",
        "rules[5].id",
        "rules[5].pattern",
        "rules[5].proxy",
      ],
    );
    for (const ok of ["http://h:1", "https://u:p@h", "socks5://[::1]:1080", "socks5h://h:9050/"])
      assert.ok(checkProxyUrl(ok).ok, ok);
    for (const bad of ["h:1", "socks4://h:1", "http://h:1/path", "http://h:1?q", "http://:p@h:1"])
      assert.equal(checkProxyUrl(bad).ok, false, bad);
  });

  it("docker_proxy_host replaces a loopback proxy host only", () => {
    const on = (url: string) => effectiveProxyUrl(url, "host.docker.internal").href;
    assert.equal(on("socks5://u:p@localhost:1080"), "socks5://u:p@host.docker.internal:1080");
    assert.equal(on("http://127.0.0.1:3128"), "http://host.docker.internal:3128/");
    assert.equal(on("http://[::1]:3128"), "http://host.docker.internal:3128/");
    assert.equal(on("http://proxy.lan:3128"), "http://proxy.lan:3128/");
    assert.equal(effectiveProxyUrl("http://localhost:1", "").hostname, "localhost");
  });

  it("turns a guide source's proxy setting into a binding", () => {
    assert.deepEqual(bindingFromSetting("auto"), { mode: "auto" });
    assert.deepEqual(bindingFromSetting("direct"), { mode: "direct" });
    assert.deepEqual(bindingFromSetting("vpn"), { mode: "profile", profileId: "vpn" });
  });
});
