import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { classifyAddress } from "@svc/core/egress";
import fc from "fast-check";
import { runs } from "./property-runs.js";

// Property: an address the egress guard refuses stays refused however it is spelt. A URL
// host goes through the WHATWG URL parser before the guard sees it, so each encoding is
// judged both as the parser normalises it (the path every door takes) and as a raw literal
// (a resolver or a socket hands over text the parser never saw).

/** Refused IPv4 ranges (base, prefix length): loopback, RFC 1918, link-local, CGNAT, … */
const BLOCKED_V4: readonly [number, number][] = [
  [0x7f000000, 8], // 127.0.0.0/8 loopback
  [0x0a000000, 8], // 10/8
  [0xac100000, 12], // 172.16/12
  [0xc0a80000, 16], // 192.168/16
  [0xa9fe0000, 16], // 169.254/16 link-local (metadata 169.254.169.254)
  [0x64400000, 10], // 100.64/10 CGNAT (RFC 6598)
  [0x00000000, 8], // 0/8 "this network"
  [0xe0000000, 4], // 224/4 multicast
  [0xf0000000, 4], // 240/4 reserved, broadcast
  [0xc0000200, 24], // 192.0.2/24 TEST-NET-1
  [0xc6120000, 15], // 198.18/15 benchmarking
];

const blockedV4 = fc
  .tuple(fc.constantFrom(...BLOCKED_V4), fc.nat())
  .map(([[base, len], host]) => (base | (host & (2 ** (32 - len) - 1))) >>> 0);

const octets = (n: number) => [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
const dotted = (n: number) => octets(n).join(".");

type Radix = "dec" | "hex" | "HEX" | "oct";
/** One IPv4 part in the radix the WHATWG IPv4 parser (and inet_aton) reads, zero-padded. */
function part(value: number, radix: Radix, pad: number): string {
  if (radix === "dec") return value === 0 ? "0".repeat(pad + 1).slice(0, 1) : String(value);
  if (radix === "oct") return `0${"0".repeat(pad)}${value.toString(8)}`;
  const digits = `${"0".repeat(pad)}${value.toString(16)}`;
  return radix === "hex" ? `0x${digits}` : `0X${digits.toUpperCase()}`;
}

const radix = fc.constantFrom<Radix>("dec", "hex", "HEX", "oct");
const pad = fc.nat(3);

/** Spellings the URL parser turns into the same IPv4 address (URL Standard 3.5 "IPv4 parser"). */
const v4Encoding = fc
  .tuple(
    blockedV4,
    fc.nat(3),
    fc.array(fc.tuple(radix, pad), { minLength: 4, maxLength: 4 }),
    fc.boolean(),
  )
  .map(([n, shape, forms, trailingDot]) => {
    const o = octets(n);
    const f = (i: number, v: number) => part(v, forms[i]![0], forms[i]![1]);
    // 4 parts; a.b.c (c: 16 bits); a.b (b: 24 bits); one 32-bit number.
    const parts =
      shape === 0
        ? o.map((v, i) => f(i, v))
        : shape === 1
          ? [f(0, o[0]!), f(1, o[1]!), f(2, (o[2]! << 8) | o[3]!)]
          : shape === 2
            ? [f(0, o[0]!), f(1, ((o[1]! << 16) | (o[2]! << 8) | o[3]!) >>> 0)]
            : [f(0, n)];
    return { address: n, text: parts.join(".") + (trailingDot ? "." : "") };
  });

const hex16 = (v: number) => v.toString(16);
/** IPv6 spellings that carry the IPv4 address: mapped, compatible, NAT64, 6to4, padded, upper-case. */
const v6Encoding = fc.tuple(blockedV4, fc.nat(5), fc.boolean()).map(([n, shape, upper]) => {
  const hi = n >>> 16;
  const lo = n & 0xffff;
  const d = dotted(n);
  const forms = [
    `::ffff:${d}`,
    `::ffff:${hex16(hi)}:${hex16(lo)}`,
    `0000:0000:0000:0000:0000:ffff:${hi.toString(16).padStart(4, "0")}:${lo.toString(16).padStart(4, "0")}`,
    `::${d}`, // IPv4-compatible (RFC 4291 2.5.5.1, deprecated)
    `64:ff9b::${d}`, // NAT64 well-known prefix (RFC 6052)
    `2002:${hex16(hi)}:${hex16(lo)}::1`, // 6to4 (RFC 3056)
  ];
  const text = forms[shape]!;
  return { address: n, text: upper ? text.toUpperCase() : text };
});

/** Non-IPv4-derived IPv6 ranges that must be refused: loopback, ULA, link-local, multicast, … */
const blockedV6 = fc.oneof(
  fc.constantFrom("::1", "0:0:0:0:0:0:0:1", "0000:0000:0000:0000:0000:0000:0000:0001", "::"),
  fc
    .tuple(fc.constantFrom("fc", "fd"), fc.array(fc.nat(0xffff), { minLength: 7, maxLength: 7 }))
    .map(
      ([p, rest]) =>
        `${p}${hex16(rest[0]! & 0xff).padStart(2, "0")}:${rest.slice(1).map(hex16).join(":")}:1`,
    ),
  fc
    .array(fc.nat(0xffff), { minLength: 4, maxLength: 4 })
    .map((r) => `fe80::${r.map(hex16).join(":")}`),
  fc
    .array(fc.nat(0xffff), { minLength: 2, maxLength: 2 })
    .map((r) => `ff02::${r.map(hex16).join(":")}`),
  fc
    .array(fc.nat(0xffff), { minLength: 2, maxLength: 2 })
    .map((r) => `2001:db8::${r.map(hex16).join(":")}`),
  fc
    .array(fc.nat(0xffff), { minLength: 2, maxLength: 2 })
    .map((r) => `2001:0:${r.map(hex16).join(":")}::1`), // Teredo
  fc
    .array(fc.nat(0xffff), { minLength: 2, maxLength: 2 })
    .map((r) => `64:ff9b:1::${r.map(hex16).join(":")}`), // RFC 8215
);

/** Percent-encodes some characters of a host: the URL parser decodes before parsing hosts. */
const percentSome = (text: string, mask: number) =>
  [...text]
    .map((c, i) => ((mask >> (i % 30)) & 1 ? `%${c.charCodeAt(0).toString(16)}` : c))
    .join("");
/** Full-width digits and dots (U+FF10…, U+FF0E) that IDNA mapping folds to ASCII (UTS #46). */
const fullWidth = (text: string) =>
  [...text]
    .map((c) =>
      /[0-9]/.test(c) ? String.fromCharCode(0xff10 + Number(c)) : c === "." ? "\uff0e" : c,
    )
    .join("");

function refusedAfterUrlParse(host: string): void {
  let hostname: string;
  try {
    hostname = new URL(`http://${host}:8080/x`).hostname;
  } catch {
    return; // the URL parser rejects it: nothing is dialled
  }
  const verdict = classifyAddress(hostname);
  assert.equal(verdict.public, false, `${host} → ${hostname} was judged public`);
}

describe("property: IP classification refuses every encoding of a blocked address", () => {
  it("IPv4: decimal, octal, hex, short dotted forms, zero padding, trailing dot", () => {
    fc.assert(
      fc.property(v4Encoding, ({ address, text }) => {
        // The generator is right about what the URL parser makes of the text…
        assert.equal(new URL(`http://${text}/`).hostname, dotted(address));
        // …and the guard refuses it parsed and raw.
        refusedAfterUrlParse(text);
        assert.equal(classifyAddress(text).public, false, `raw ${text}`);
      }),
      runs(1500),
    );
  });

  it("IPv4 in percent-encoded and full-width spellings", () => {
    fc.assert(
      fc.property(v4Encoding, fc.nat(), fc.boolean(), ({ address, text }, mask, wide) => {
        const host = wide ? fullWidth(text) : percentSome(text, mask);
        assert.equal(new URL(`http://${host}/`).hostname, dotted(address));
        refusedAfterUrlParse(host);
      }),
      runs(500),
    );
  });

  it("IPv4-mapped, compatible, NAT64 and 6to4 IPv6 forms, padded and upper-case", () => {
    fc.assert(
      fc.property(v6Encoding, ({ text }) => {
        refusedAfterUrlParse(`[${text}]`);
        assert.equal(classifyAddress(text).public, false, `raw ${text}`);
        assert.equal(classifyAddress(`[${text}]`).public, false, `bracketed ${text}`);
      }),
      runs(1000),
    );
  });

  it("IPv6 loopback, unspecified, ULA, link-local, multicast, documentation, Teredo, local NAT64", () => {
    fc.assert(
      fc.property(blockedV6, fc.boolean(), (text, upper) => {
        const t = upper ? text.toUpperCase() : text;
        refusedAfterUrlParse(`[${t}]`);
        assert.equal(classifyAddress(t).public, false, `raw ${t}`);
      }),
      runs(800),
    );
  });

  it("control: public unicast addresses in the same spellings pass (the property can fail)", () => {
    const publicV4 = fc.constantFrom(0x08080808, 0x01010101, 0x5db8d822); // 8.8.8.8, 1.1.1.1, 93.184.216.34
    fc.assert(
      fc.property(publicV4, (n) => {
        for (const text of [dotted(n), String(n), `0x${n.toString(16)}`, `::ffff:${dotted(n)}`]) {
          const host = text.includes(":") ? `[${text}]` : text;
          const hostname = new URL(`http://${host}/`).hostname;
          assert.equal(classifyAddress(hostname).public, true, `${text} → ${hostname}`);
        }
      }),
      runs(10),
    );
  });
});
