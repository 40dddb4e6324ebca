import { rmSync } from "node:fs";
import { describe, it } from "node:test";
import { tempDir } from "../harness/gateway-process.js";
import { SQLITE_ONLY } from "../harness/storage-mode.js";
import { crashRound, emptyAcknowledged, finalCheck } from "./crash-rounds.js";

// Issue 14 item 4. `npm test` runs a bounded number of rounds; `npm run soak` runs 20
// (CRASH_ROUNDS). Kill times vary per round so the kill lands in different phases of the
// burst (mid-transaction, between commits, during a queue flush).
const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 3);

describe("full: crash loops (SIGKILL during admin writes and access logging)", () => {
  it(`${ROUNDS} rounds: every 2xx write survives, integrity_check ok after each kill`, {
    skip: SQLITE_ONLY,
  }, async () => {
    const dir = tempDir("svc-crash-loop-");
    try {
      const ack = emptyAcknowledged();
      for (let round = 0; round < ROUNDS; round++) {
        await crashRound(dir, round, ack, 1000 + ((round * 373) % 1500));
      }
      await finalCheck(dir, ack);
      process.stdout.write(
        `crash loop: ${ack.counts.kills} kills, ${ack.counts.writes} acknowledged writes, ` +
          `${ack.counts.plays} logged plays, ${ack.channels.size} channels, ` +
          `${ack.apiTokens.size} API tokens, ${ack.playbackKeys.size} playback keys, ` +
          `${ack.accessRecords.size} access records checked\n`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
