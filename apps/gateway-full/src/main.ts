#!/usr/bin/env node
import cluster from "node:cluster";
import { readBuildInfo, runCli } from "@svc/core/cli";
import { composeFull } from "./app.js";
import { DEFAULT_CONFIG_PATH, ensureDefaultConfig } from "./first-run.js";

let firstRun: { path: string; password: string | undefined } | undefined;

await runCli({
  build: "full",
  argv: process.argv.slice(2),
  info: readBuildInfo(new URL("./build-info.json", import.meta.url)),
  // Without --config or SVC_CONFIG, `npm start` runs on the embedded default in ./data;
  // the file is written only when the gateway really starts (never by --check-config).
  defaultConfig: {
    path: DEFAULT_CONFIG_PATH,
    prepare: async () => {
      firstRun = await ensureDefaultConfig();
      return firstRun.path;
    },
  },
  compose: async (ctx) => {
    const composed = await composeFull(ctx);
    return {
      ...composed,
      started: (urls) => {
        composed.started?.(urls);
        // Workers: the first one speaks for all.
        if (ctx.worker !== undefined && ctx.worker.index !== 1) return;
        const consoleUrl = `${urls[0]}/admin`;
        if (firstRun?.password !== undefined) {
          process.stdout.write(
            `first run: wrote ${firstRun.path}\n  console:  ${consoleUrl}\n  username: admin\n  password: ${firstRun.password}\n  (shown once; change it in the console)\n`,
          );
        } else {
          process.stdout.write(`console: ${consoleUrl}\n`);
        }
      },
    };
  },
});

// Workers (`server.workers` > 1): this process became their primary, and the first-run
// password it generated is shown here once (the workers find the file already written).
if (
  cluster.isPrimary &&
  Object.keys(cluster.workers ?? {}).length > 0 &&
  firstRun?.password !== undefined
) {
  process.stdout.write(
    `first run: wrote ${firstRun.path}\n  console:  /admin on the address below\n  username: admin\n  password: ${firstRun.password}\n  (shown once; change it in the console)\n`,
  );
}
