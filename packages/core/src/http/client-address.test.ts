import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { describe, it } from "node:test";
import { createRateLimiter } from "../auth/login-limiter.js";
import { createLoginRoute } from "../auth/login-route.js";
import { createPasswordHasher } from "../auth/passwords.js";
import { createSessionTokens } from "../auth/session-tokens.js";
import { resolveSigningKeys } from "../auth/signing-keys.js";
import { accountsFromConfig, createStaticDirectory } from "../auth/users.js";
import { createLogger } from "../base/log.js";
import { readEnvironment } from "../config/environment.js";
import { parseConfig } from "../config/load.js";
import { rateLimitSubject } from "./client-address.js";
import { createBaseApp } from "./create-app.js";

// Addresses below are strings from the documentation ranges (RFC 3849, RFC 5737):
// nothing is ever sent to them; they only key the limiter.
describe("rateLimitSubject (issue 12 item 8)", () => {
  const cases: [string, string][] = [
    ["192.0.2.7", "192.0.2.7"],
    ["::ffff:192.0.2.7", "192.0.2.7"],
    ["2001:db8:1:2::7", "2001:db8:1:2::/64"],
    ["2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"],
    ["2001:0db8:0001:0002:0000:0000:0000:0001", "2001:db8:1:2::/64"],
    ["2001:db8:1:3::7", "2001:db8:1:3::/64"],
    ["::1", "::/64"],
    ["not an address", "not an address"],
  ];
  for (const [address, subject] of cases) {
    it(`${address} → ${subject}`, () => assert.equal(rateLimitSubject(address), subject));
  }
});

describe("login limiter over the real route: IPv6 clients count per /64", () => {
  const config = parseConfig(
    [
      "server: {data_dir: ''}",
      "auth:",
      "  token_private_key: |",
      ...resolveKeyPem()
        .split("\n")
        .map((l) => `    ${l}`),
      "  login_rate_per_min: 2",
      "  users:",
      "    - {username: admin, password_hash: '$2b$04$Qm8FzN1p0mV1dJd8lHq2UeX1yK3o9jM2vVf0bS3cT4dE5fG6hI7jK', role: admin}",
    ].join("\n"),
    readEnvironment({}),
  );
  const app = createBaseApp({
    build: "lite",
    config,
    log: createLogger({ level: "silent", build: "lite" }),
  });
  app.route(
    "/",
    createLoginRoute({
      accounts: createStaticDirectory(accountsFromConfig(config)),
      tokens: createSessionTokens({
        keys: resolveSigningKeys(config),
        issuer: "svc",
        audience: "svc",
        ttlHours: 1,
      }),
      limiter: createRateLimiter(config.auth.login_rate_per_min),
      passwords: createPasswordHasher({ cores: 1 }),
    }),
  );
  const attempt = async (remoteAddress: string) => {
    const res = await app.request(
      "/v1/auth/login",
      {
        method: "POST",
        headers: { "content-type": "application/json", host: "localhost" },
        body: JSON.stringify({ username: "admin", password: "wrong-password" }),
      },
      { incoming: { socket: { remoteAddress } } },
    );
    return res.status;
  };

  it("shares one quota between two addresses of a /64 and keeps another /64 apart", async () => {
    assert.equal(await attempt("2001:db8:1:2::a"), 401);
    assert.equal(await attempt("2001:db8:1:2:ffff::b"), 401);
    // Third attempt of the same /64 from yet another address: over the quota of 2.
    assert.equal(await attempt("2001:db8:1:2::c"), 429);
    assert.equal(await attempt("2001:db8:1:3::a"), 401);
  });
});

function resolveKeyPem(): string {
  const { privateKey } = generateKeyPairSync("ed25519");
  return String(privateKey.export({ format: "pem", type: "pkcs8" })).trim();
}
