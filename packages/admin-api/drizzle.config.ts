import { defineConfig } from "drizzle-kit";

// `pnpm exec drizzle-kit generate` writes SQL migrations into ./drizzle; they are
// committed and applied at startup by src/db/migrate.ts.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema/index.ts",
  out: "./drizzle",
});
