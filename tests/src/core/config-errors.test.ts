import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runExpectingExit } from "../harness/gateway-process.js";
import { ed25519Pair } from "../harness/keys.js";
import { hashFor } from "../harness/users.js";

const hash = hashFor("password-1");
const user = `auth:\n  users:\n    - {username: admin, password_hash: "${hash}", role: admin}\n`;
const listen = 'server: {listen: "127.0.0.1:0"}\n';

const cases: { name: string; text: string; expect: string[]; env?: Record<string, string> }[] = [
  { name: "no users", text: listen, expect: ["auth.users: required"] },
  {
    name: "missing password hash",
    text: `${listen}auth:\n  users:\n    - {username: admin, role: admin}\n`,
    expect: ["auth.users[0].password_hash: required"],
  },
  {
    name: "plaintext password instead of a hash",
    text: `${listen}auth:\n  users:\n    - {username: admin, password_hash: hunter22, role: admin}\n`,
    expect: ["auth.users[0].password_hash: must be a bcrypt hash"],
  },
  {
    name: "duplicate usernames",
    text: `${listen}auth:\n  users:\n    - {username: a, password_hash: "${hash}", role: admin}\n    - {username: a, password_hash: "${hash}", role: viewer}\n`,
    expect: ['auth.users[1].username: duplicate username "a"'],
  },
  {
    name: "unknown key",
    text: `${listen}${user}security: {allowed_host: []}\n`,
    expect: ["security.allowed_host: unknown key"],
  },
  {
    name: "no key material anywhere",
    text: `server: {listen: "127.0.0.1:0", data_dir: ""}\n${user}`,
    expect: ["auth.token_private_key: required"],
  },
  {
    name: "unreadable key file",
    text: `${listen}${user.replace("auth:\n", "auth:\n  token_private_key_file: /nonexistent/key.pem\n")}`,
    expect: ["auth.token_private_key_file: cannot read"],
  },
  {
    name: "key file from the environment",
    text: `${listen}${user}`,
    env: { SVC_TOKEN_PRIVATE_KEY_FILE: "/nonexistent/env-key.pem" },
    expect: ["auth.token_private_key_file: cannot read /nonexistent/env-key.pem"],
  },
  {
    name: "inline key that is not PEM",
    text: `${listen}${user.replace("auth:\n", "auth:\n  token_private_key: nope\n")}`,
    expect: ["auth.token_private_key: not a PEM private key"],
  },
  {
    name: "several problems at once",
    text: "server: {listen: nope}\nauth:\n  users:\n    - {username: a, role: admin}\nextra: 1\n",
    expect: ["server.listen:", "auth.users[0].password_hash: required", "extra: unknown key"],
  },
];

for (const build of ["lite", "full"] as const) {
  describe(`${build}: invalid config exits 2 naming the key path`, () => {
    for (const c of cases) {
      it(c.name, async () => {
        const r = await runExpectingExit(build, c.text, { env: c.env ?? {} });
        assert.equal(r.code, 2, `stderr: ${r.stderr}`);
        for (const e of c.expect)
          assert.ok(r.stderr.includes(e), `expected "${e}" in stderr:\n${r.stderr}`);
        assert.doesNotMatch(r.stdout, /listening on/);
      });
    }
  });
}

describe("public key must match the private key", () => {
  it("refuses a mismatching token_public_key", async () => {
    const a = ed25519Pair();
    const b = ed25519Pair();
    const text = `${listen}auth:\n  token_private_key: ${JSON.stringify(a.privatePem)}\n  token_public_key: ${JSON.stringify(b.publicPem)}\n  users:\n    - {username: admin, password_hash: "${hash}", role: admin}\n`;
    const bad = await runExpectingExit("lite", text);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /auth\.token_public_key: does not match the private key/);
  });
});
