// `npm start`: install, build, and run the full gateway on the embedded default
// (data dir ./data, listening on 127.0.0.1:8080; the first run writes
// ./data/gateway.yaml and prints the admin password once).
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { installAndBuild, root } from "./bootstrap.mjs";

const status = installAndBuild();
if (status !== 0) process.exit(status);

// The node flags every launcher gives the gateway (docs/deploy.md, "Node flags").
const flags = JSON.parse(readFileSync(join(root, "scripts/gateway-node-flags.json"), "utf8"));
const child = spawn(
  process.execPath,
  [...flags, join(root, "apps/gateway-full/dist/main.js"), ...process.argv.slice(2)],
  {
    cwd: root,
    stdio: "inherit",
  },
);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
