import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { tempDir } from "../harness/gateway-process.js";
import { ed25519Pair } from "../harness/keys.js";
import { repoRoot } from "../harness/paths.js";
import { runBinary, snapshotTree } from "../harness/run-binary.js";
import { hashFor } from "../harness/users.js";

/** A self-signed pair made by openssl, as the README tells operators to make one. */
function selfSigned(dir: string, name = ""): { cert: string; key: string } {
  mkdirSync(dir, { recursive: true });
  const cert = join(dir, `cert${name}.pem`);
  const key = join(dir, `key${name}.pem`);
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ed25519",
      "-nodes",
      "-days",
      "30",
      "-subj",
      "/CN=localhost",
      "-keyout",
      key,
      "-out",
      cert,
    ],
    { stdio: "ignore" },
  );
  return { cert, key };
}

const example = (name: string) => join(repoRoot, "examples", name);

describe("--check-config on the shipped examples", () => {
  const dir = tempDir("svc-examples-");
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const build of ["lite", "full"] as const) {
    it(`${build}: examples/lite.yaml is valid (3 channels), nothing written`, async () => {
      const before = snapshotTree(dir);
      const r = await runBinary(build, ["--config", example("lite.yaml"), "--check-config"], {
        cwd: dir,
      });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `config ok: ${example("lite.yaml")} (1 user(s), 3 channel(s))\n`);
      assert.equal(r.stderr, "");
      assert.deepEqual(snapshotTree(dir), before, "no data dir, no key");
    });
  }

  it("full: examples/full.yaml names its TLS pair; missing files are one line each", async () => {
    const r = await runBinary("full", ["--config", example("full.yaml"), "--check-config"], {
      cwd: dir,
    });
    assert.equal(r.code, 2);
    assert.equal(
      r.stderr,
      [
        `server.tls_cert_file: cannot read ${example("tls/cert.pem")} (ENOENT)`,
        `server.tls_key_file: cannot read ${example("tls/key.pem")} (ENOENT)`,
        "",
      ].join("\n"),
    );
    assert.equal(r.stdout, "");
  });

  it("full and lite: examples/full.yaml with its TLS pair made as the README says is valid", async () => {
    const copy = join(dir, "full");
    mkdirSync(copy);
    copyFileSync(example("full.yaml"), join(copy, "gateway.yaml"));
    selfSigned(join(copy, "tls"));
    const before = snapshotTree(dir);
    for (const build of ["full", "lite"] as const) {
      const r = await runBinary(build, ["--config", join(copy, "gateway.yaml"), "--check-config"], {
        cwd: copy,
      });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(
        r.stdout,
        `config ok: ${join(copy, "gateway.yaml")} (2 user(s), 2 channel(s))\n`,
      );
    }
    assert.deepEqual(snapshotTree(dir), before, "no ./data, no state.db, no generated key");
  });
});

describe("--check-config on broken files: one line per problem, exit 2, nothing started or written", () => {
  const dir = tempDir("svc-check-");
  const hash = hashFor("password-1");
  const user = `auth:\n  users:\n    - {username: admin, password_hash: "${hash}", role: admin}\n`;
  const base = `server: {listen: "127.0.0.1:0", data_dir: "${join(dir, "data")}"}\n${user}`;
  let tls: { cert: string; key: string };
  let other: { cert: string; key: string };
  before(() => {
    tls = selfSigned(join(dir, "tls"));
    other = selfSigned(join(dir, "tls"), "-other");
    writeFileSync(join(dir, "not-pem.txt"), "hello\n");
    writeFileSync(join(dir, "a-file"), "x");
    execFileSync(
      "openssl",
      [
        "genpkey",
        "-algorithm",
        "RSA",
        "-pkeyopt",
        "rsa_keygen_bits:1024",
        "-out",
        join(dir, "rsa.pem"),
      ],
      {
        stdio: "ignore",
      },
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const tlsServer = (cert: string, key: string) =>
    `server: {listen: "127.0.0.1:0", data_dir: "${join(dir, "data")}", tls_listen: "127.0.0.1:0", tls_cert_file: "${cert}", tls_key_file: "${key}"}\n${user}`;
  const cases: {
    name: string;
    text: () => string;
    expect: string[];
    env?: Record<string, string>;
  }[] = [
    { name: "YAML syntax", text: () => "auth: [\n", expect: ["YAML error"] },
    {
      name: "unknown key and a missing hash",
      text: () => "server: {lisen: x}\nauth:\n  users:\n    - {username: a, role: admin}\n",
      expect: ["server.lisen: unknown key", "auth.users[0].password_hash: required"],
    },
    {
      name: "a key file that is not there",
      text: () => base.replace("auth:\n", "auth:\n  token_private_key_file: missing.pem\n"),
      expect: [`auth.token_private_key_file: cannot read ${join(dir, "missing.pem")} (ENOENT)`],
    },
    {
      name: "an RSA key where Ed25519 is required",
      text: () => base.replace("auth:\n", "auth:\n  token_private_key_file: rsa.pem\n"),
      expect: ["auth.token_private_key_file: must be an Ed25519 key, got rsa"],
    },
    {
      name: "a public key of another pair",
      text: () => {
        const a = ed25519Pair();
        const b = ed25519Pair();
        return base.replace(
          "auth:\n",
          `auth:\n  token_private_key: ${JSON.stringify(a.privatePem)}\n  token_public_key: ${JSON.stringify(b.publicPem)}\n`,
        );
      },
      expect: ["auth.token_public_key: does not match the private key"],
    },
    {
      name: "a certificate file that is not PEM and a missing key file",
      text: () => tlsServer(join(dir, "not-pem.txt"), join(dir, "nope.pem")),
      expect: [
        `server.tls_key_file: cannot read ${join(dir, "nope.pem")} (ENOENT)`,
        "server.tls_cert_file: not a PEM certificate",
      ],
    },
    {
      name: "a TLS key of another certificate",
      text: () => tlsServer(tls.cert, other.key),
      expect: ["server.tls_key_file: does not match the certificate"],
    },
    {
      name: "a data dir that is a file",
      text: () => base.replace(join(dir, "data"), join(dir, "a-file")),
      expect: [`server.data_dir: ${join(dir, "a-file")} is not a directory`],
    },
    {
      name: "log settings the logger would not take",
      text: () => base,
      env: { SVC_LOG_FORMAT: "xml", SVC_LOG_LEVEL: "loud" },
      expect: ["SVC_LOG_LEVEL: must be one of", 'SVC_LOG_FORMAT: must be "json" or "pretty"'],
    },
  ];
  for (const build of ["lite", "full"] as const) {
    for (const c of cases) {
      it(`${build}: ${c.name}`, async () => {
        const path = join(dir, `${build}.yaml`);
        writeFileSync(path, c.text());
        const before = snapshotTree(dir);
        const r = await runBinary(build, ["--check-config", "--config", path], {
          cwd: dir,
          env: c.env ?? {},
        });
        assert.equal(r.code, 2, r.stderr);
        assert.equal(r.stdout, "");
        const lines = r.stderr.trimEnd().split("\n");
        assert.equal(lines.length, c.expect.length, r.stderr);
        for (const e of c.expect)
          assert.ok(
            lines.some((l) => l.startsWith(e)),
            `expected "${e}" in:\n${r.stderr}`,
          );
        assert.deepEqual(snapshotTree(dir), before);
      });
    }
  }

  it("a valid TLS pair passes; SVC_CONFIG names the file like --config", async () => {
    const path = join(dir, "tls-ok.yaml");
    writeFileSync(path, tlsServer(tls.cert, tls.key));
    const r = await runBinary("full", ["--check-config"], { cwd: dir, env: { SVC_CONFIG: path } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^config ok: /);
  });

  it("the same TLS problem stops a real start with exit 2 (no stack trace)", async () => {
    const path = join(dir, "tls-bad.yaml");
    writeFileSync(path, tlsServer(tls.cert, other.key));
    const r = await runBinary("lite", ["--config", path], { cwd: dir });
    assert.equal(r.code, 2);
    assert.equal(r.stderr, "server.tls_key_file: does not match the certificate\n");
  });
});
