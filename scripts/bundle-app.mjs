// Bundles an app's entry into one ES module at the same path tsc wrote it to
// (`dist/main.js`), so a start loads one file instead of several hundred modules
// (issue 13 item 5). Run from the app's folder after `tsc`:
//   node ../../scripts/bundle-app.mjs
// Native addons cannot be bundled (their `.node` files are found by `bindings`
// at run time) and stay external, resolved from the app's node_modules as before.
// `import.meta.url` keeps pointing at dist/, so `build-info.json` beside the entry
// and `import.meta.resolve("@svc/…")` lookups (console assets, migrations) still work.
import { build } from "esbuild";

const NATIVE_ADDONS = ["better-sqlite3", "bcrypt", "fs-native-extensions"];
// `pg` (the PostgreSQL driver of `server.database_url`) is pure JavaScript and bundled;
// its optional libpq binding is only loaded on `pg.native`, which the gateway never uses,
// and is not installed: left as a run-time require.
const OPTIONAL_NATIVE = ["pg-native"];

await build({
  entryPoints: ["src/main.ts"],
  outfile: "dist/main.js",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  external: [...NATIVE_ADDONS, ...OPTIONAL_NATIVE],
  sourcemap: true,
  // Bundled CommonJS dependencies call `require` for Node built-ins; an ES module has none.
  banner: {
    js: 'import { createRequire as __svcCreateRequire } from "node:module"; const require = __svcCreateRequire(import.meta.url);',
  },
  logLevel: "warning",
  legalComments: "linked",
});
