#!/usr/bin/env node
import { bootGateway } from "@svc/core/boot";
import { composeFull } from "./app.js";
import { ensureDefaultConfig } from "./first-run.js";

let firstRun: { path: string; password: string | undefined } | undefined;

await bootGateway({
  build: "full",
  argv: process.argv.slice(2),
  // Without --config or SVC_CONFIG, `npm start` runs on the embedded default in ./data.
  defaultConfig: async () => {
    firstRun = await ensureDefaultConfig();
    return firstRun.path;
  },
  compose: async (ctx) => {
    const composed = await composeFull(ctx);
    return {
      ...composed,
      started: (urls) => {
        composed.started?.(urls);
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
