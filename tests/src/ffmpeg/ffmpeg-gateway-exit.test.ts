import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { reapOrphans } from "@svc/playback/ffmpeg-engine";
import {
  type DashSource,
  type Origin,
  startDashSource,
  startOrigin,
  waitFor,
} from "../harness/ffmpeg-dash-origin.js";
import { cmdline, groupMembers, isGone, procEntry } from "../harness/process-table.js";

const here = dirname(fileURLToPath(import.meta.url));

/** Start engine-child.js (a stand-in gateway) and wait until its ffmpeg runs. */
async function startEngineChild(dataDir: string, mpdUrl: string, channel: string) {
  const child = spawn(process.execPath, [join(here, "engine-child.js"), dataDir, mpdUrl, channel], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code)),
  );
  const ran = await waitFor(() => /^pid \d+$/m.test(out), 30_000);
  if (!ran) child.kill("SIGKILL");
  assert.ok(ran, `engine child never reported a running ffmpeg: ${out}`);
  const pid = Number(/^pid (\d+)$/m.exec(out)?.[1]);
  return { child, pid, exited };
}

describe("ffmpeg when its gateway exits: SIGTERM, process.exit, SIGKILL", () => {
  const root = mkdtempSync(join(tmpdir(), "svc-ffmpeg-orphan-"));
  const dataDir = join(root, "data");
  let source: DashSource;
  let origin: Origin;
  const leftovers: number[] = [];

  before(async () => {
    source = await startDashSource(join(root, "origin"));
    origin = await startOrigin(join(root, "origin"));
  });
  after(async () => {
    for (const pid of leftovers) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // gone, as it should be
      }
    }
    await source?.stop();
    await origin?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("graceful shutdown (SIGTERM → stopAllFfmpegSessions) leaves no ffmpeg, pidfile or folder", async () => {
    const { child, pid, exited } = await startEngineChild(
      dataDir,
      `${origin.url}/live/manifest.mpd`,
      "graceful",
    );
    leftovers.push(pid);
    child.kill("SIGTERM");
    assert.equal(await exited, 0);
    assert.ok(isGone(pid), `ffmpeg ${pid} outlived a graceful shutdown`);
    assert.deepEqual(groupMembers(pid), []);
    assert.equal(existsSync(join(dataDir, "sessions", ".pids", `${pid}.json`)), false);
    assert.equal(existsSync(join(dataDir, "sessions", "graceful", "1")), false);
  });

  it("process.exit without stopping: the exit hook still SIGKILLs the group and drops the pidfile", async () => {
    const { child, pid, exited } = await startEngineChild(
      dataDir,
      `${origin.url}/live/manifest.mpd`,
      "abrupt",
    );
    leftovers.push(pid);
    child.kill("SIGUSR2");
    assert.equal(await exited, 3);
    assert.ok(await waitFor(() => isGone(pid), 5_000), `ffmpeg ${pid} outlived process.exit`);
    assert.equal(existsSync(join(dataDir, "sessions", ".pids", `${pid}.json`)), false);
  });

  it("SIGKILL: ffmpeg survives its gateway, and reapOrphans on the next start kills its group", async () => {
    const { child, pid, exited } = await startEngineChild(
      dataDir,
      `${origin.url}/live/manifest.mpd`,
      "orphan",
    );
    leftovers.push(pid);
    child.kill("SIGKILL");
    await exited;

    const orphan = procEntry(pid);
    assert.ok(orphan !== undefined && orphan.state !== "Z", "ffmpeg outlived its gateway");
    assert.notEqual(orphan.ppid, child.pid);
    assert.equal(orphan.pgrp, pid);
    const sessionDir = join(dataDir, "sessions", "orphan", "1");
    assert.ok(cmdline(pid).some((a) => a.startsWith(`${sessionDir}/`)));
    const pidfile = join(dataDir, "sessions", ".pids", `${pid}.json`);
    assert.equal(JSON.parse(readFileSync(pidfile, "utf8")).dir, sessionDir);

    const report = await reapOrphans(dataDir, { graceMs: 2_000 });
    assert.deepEqual(report, {
      killed: [{ pid, channel: "orphan", generation: "1" }],
      stale: 0,
      survivors: [],
    });
    assert.ok(isGone(pid), `ffmpeg ${pid} still alive`);
    assert.deepEqual(groupMembers(pid), []);
    assert.equal(existsSync(pidfile), false);
    assert.equal(existsSync(sessionDir), false);
  });

  it("never kills a process that is not our ffmpeg (recycled pid): the pidfile is stale", async () => {
    const bystander = spawn("sleep", ["30"], { detached: true, stdio: "ignore" });
    assert.ok(bystander.pid !== undefined);
    leftovers.push(bystander.pid);
    const pids = join(dataDir, "sessions", ".pids");
    mkdirSync(pids, { recursive: true });
    writeFileSync(
      join(pids, `${bystander.pid}.json`),
      JSON.stringify({
        pid: bystander.pid,
        dir: join(dataDir, "sessions", "x", "1"),
        channel: "x",
        generation: "1",
        started_at: new Date().toISOString(),
      }),
    );
    writeFileSync(join(pids, "999999999.json"), "{not json");
    const report = await reapOrphans(dataDir);
    assert.deepEqual(report, { killed: [], stale: 2, survivors: [] });
    const entry = procEntry(bystander.pid);
    assert.ok(entry !== undefined && entry.state !== "Z", "the bystander must still run");
    bystander.kill("SIGKILL");
  });

  it("with no pidfiles at all it reports nothing", async () => {
    assert.deepEqual(await reapOrphans(join(root, "fresh-data")), {
      killed: [],
      stale: 0,
      survivors: [],
    });
  });
});
