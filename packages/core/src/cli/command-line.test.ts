import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { resolveLogFormat } from "../base/log.js";
import { type Command, parseCommandLine } from "./command-line.js";

describe("parseCommandLine", () => {
  const cases: [string[], Command["kind"], Record<string, unknown>?][] = [
    [[], "run", { configPath: undefined }],
    [["--config", "a.yaml"], "run", { configPath: "a.yaml" }],
    [["--config=a.yaml"], "run", { configPath: "a.yaml" }],
    [["-c", "a.yaml"], "run", { configPath: "a.yaml" }],
    [["--check-config"], "check-config", { configPath: undefined }],
    [["--check-config", "-c", "b.yaml"], "check-config", { configPath: "b.yaml" }],
    [["--help"], "help"],
    [["-h", "--config", "a.yaml"], "help"],
    [["--version", "--check-config"], "version"],
    [["-V"], "version"],
    [["hash-password"], "hash-password"],
    [["hash-password", "--help"], "help"],
    [["--bogus"], "usage-error"],
    [["--config"], "usage-error"],
    [["--config="], "usage-error"],
    [["--help=1"], "usage-error"],
    [["serve"], "usage-error"],
    [["--help", "serve"], "usage-error"],
    [["hash-password", "secret"], "usage-error"],
    [["hash-password", "-c", "a.yaml"], "usage-error"],
    [["hash-password", "--check-config"], "usage-error"],
  ];
  for (const [argv, kind, fields] of cases) {
    it(`${JSON.stringify(argv)} → ${kind}`, () => {
      const got = parseCommandLine(argv);
      assert.equal(got.kind, kind, JSON.stringify(got));
      for (const [k, v] of Object.entries(fields ?? {}))
        assert.equal((got as unknown as Record<string, unknown>)[k], v);
      if (got.kind === "usage-error")
        assert.ok(got.message.length > 0 && !got.message.includes("\n"));
    });
  }
});

describe("resolveLogFormat", () => {
  const cases: [string | undefined, boolean, string][] = [
    [undefined, true, "pretty"],
    [undefined, false, "json"],
    ["json", true, "json"],
    ["pretty", false, "pretty"],
  ];
  for (const [requested, tty, expected] of cases) {
    it(`${requested ?? "unset"} on ${tty ? "a terminal" : "a pipe"} → ${expected}`, () =>
      assert.equal(resolveLogFormat(requested, tty), expected));
  }
});
