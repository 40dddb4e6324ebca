import { defineConfig } from "drizzle-kit";

// `pnpm exec drizzle-kit generate` writes SQL migrations into ./drizzle; they are
// committed and applied at startup by src/db/migrate.ts.
export default defineConfig({
  dialect: "sqlite",
  schema: [
    "./src/db/schema/api-token-audit.ts",
    "./src/db/schema/api-tokens.ts",
    "./src/db/schema/channel-leases.ts",
    "./src/db/schema/channels.ts",
    "./src/db/schema/credential-overrides.ts",
    "./src/db/schema/egress-config.ts",
    "./src/db/schema/guide-channels.ts",
    "./src/db/schema/guide-programmes.ts",
    "./src/db/schema/guide-source-status.ts",
    "./src/db/schema/guide-sources.ts",
    "./src/db/schema/login-windows.ts",
    "./src/db/schema/m3u-source-status.ts",
    "./src/db/schema/m3u-sources.ts",
    "./src/db/schema/playback-access-log.ts",
    "./src/db/schema/playback-keys.ts",
    "./src/db/schema/settings.ts",
    "./src/db/schema/state-markers.ts",
    "./src/db/schema/state-versions.ts",
    "./src/db/schema/viewer-seats.ts",
  ],
  out: "./drizzle",
});
