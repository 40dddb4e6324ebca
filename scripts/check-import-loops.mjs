// Import loops (issue 31 "Dependencies flow one way"): reads the relative imports of
// every .ts/.tsx source under packages/*/src and apps/*/src (type-only imports and
// re-exports included, co-located tests included), folds each file into the folder that
// holds it, and finds the strongly connected components of that folder graph; the same
// over the workspace packages' `@svc/*` imports. A loop fails unless
// tooling/import-loops-allowed.json lists it, and a listed loop that no longer exists
// fails too, so the list can only shrink.
//
//   node scripts/check-import-loops.mjs           check (exit 1 on a new or stale loop)
//   node scripts/check-import-loops.mjs --list    print every loop as allow-list JSON
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const ALLOW_FILE = join(root, "tooling", "import-loops-allowed.json");
const NOTE =
  "Folder import loops that exist today and are being removed (issue 31). Checked by scripts/check-import-loops.mjs in npm test: a loop not listed here fails, and so does a listed one that no longer exists, so this list only shrinks.";

/** Every workspace unit with a src/ folder: `{ name, dir }` (name from package.json). */
function workspaceUnits() {
  const units = [];
  for (const group of ["packages", "apps"]) {
    for (const entry of readdirSync(join(root, group)).sort()) {
      const dir = join(root, group, entry);
      if (!existsSync(join(dir, "src")) || !existsSync(join(dir, "package.json"))) continue;
      const { name } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      units.push({ name, dir, label: `${group}/${entry}` });
    }
  }
  return units;
}

function sourceFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) {
        if (name !== "node_modules" && name !== "dist") walk(path);
      } else if (/\.tsx?$/.test(name) && !/\.(test\.tsx?|d\.ts)$/.test(name)) out.push(path);
    }
  };
  walk(dir);
  return out.sort();
}

/** Comments blanked out, so an example in a comment is no import. */
function stripComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

/** The module specifiers a source names: `from "…"`, `import "…"`, `import("…")`. */
function specifiers(text) {
  const code = stripComments(text);
  const out = [];
  for (const re of [
    /\bfrom\s*["']([^"']+)["']/g,
    /(?:^|[;\s])import\s*["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
  ]) {
    for (const m of code.matchAll(re)) out.push(m[1]);
  }
  return out;
}

/** A relative specifier resolved to its source file (`./x.js` → `x.ts`/`x.tsx`/`x/index.ts`). */
function resolveRelative(fromFile, spec) {
  const base = resolve(dirname(fromFile), spec);
  const stem = base.replace(/\.(c|m)?js$|\.jsx$/, "");
  for (const candidate of [
    base,
    `${stem}.ts`,
    `${stem}.tsx`,
    join(base, "index.ts"),
    join(base, "index.tsx"),
  ]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** Tarjan's strongly connected components; only those with two or more nodes. */
function loops(nodes, edges) {
  let index = 0;
  const stack = [];
  const onStack = new Set();
  const idx = new Map();
  const low = new Map();
  const found = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of [...nodes].sort()) if (!idx.has(v)) visit(v);
  return found.sort((a, b) => a.join().localeCompare(b.join()));
}

function addEdge(edges, from, to, why, reasons) {
  if (from === to) return;
  if (!edges.has(from)) edges.set(from, new Set());
  edges.get(from).add(to);
  const key = `${from} -> ${to}`;
  if (!reasons.has(key)) reasons.set(key, why);
}

/** Every loop in the workspace: `{ scope, folders, edges }` with one example import per edge. */
export function findLoops() {
  const units = workspaceUnits();
  const byName = new Map(units.map((u) => [u.name, u]));
  const found = [];
  const pkgEdges = new Map();
  const pkgReasons = new Map();
  for (const unit of units) {
    const src = join(unit.dir, "src");
    const folderOf = (file) => relative(src, dirname(file)).split("\\").join("/") || ".";
    // Two granularities: the folder that holds a file (`dash/manifest`), and its top folder
    // under src/ (`dash`), so neither a parent and its subfolder nor two top folders through
    // their subfolders depend on each other both ways.
    const grains = [
      { scope: unit.label, of: folderOf },
      { scope: `${unit.label} (top folders)`, of: (file) => folderOf(file).split("/")[0] },
    ];
    const graphs = grains.map(() => ({ edges: new Map(), reasons: new Map(), nodes: new Set() }));
    for (const file of sourceFiles(src)) {
      for (const spec of specifiers(readFileSync(file, "utf8"))) {
        const shown = `${relative(src, file)} imports "${spec}"`;
        if (spec.startsWith("./") || spec.startsWith("../")) {
          const target = resolveRelative(file, spec);
          if (target === undefined || !target.startsWith(`${src}/`)) continue;
          grains.forEach((g, i) => {
            graphs[i].nodes.add(g.of(file));
            addEdge(graphs[i].edges, g.of(file), g.of(target), shown, graphs[i].reasons);
          });
        } else {
          const pkg = spec.split("/").slice(0, 2).join("/");
          if (byName.has(pkg))
            addEdge(pkgEdges, unit.name, pkg, `${unit.label}/src/${shown}`, pkgReasons);
        }
      }
    }
    grains.forEach((g, i) => {
      const { nodes, edges, reasons } = graphs[i];
      for (const folders of loops(nodes, edges)) {
        const inLoop = new Set(folders);
        const why = [...reasons]
          .filter(([key]) => key.split(" -> ").every((f) => inLoop.has(f)))
          .map(([key, example]) => `${key}  (${example})`);
        // A loop of top folders that is also a loop of the same folders is reported once.
        if (
          i === 1 &&
          found.some((l) => l.scope === unit.label && l.folders.join() === folders.join())
        )
          continue;
        found.push({ scope: g.scope, folders, edges: why });
      }
    });
  }
  for (const pkgs of loops(new Set(byName.keys()), pkgEdges)) {
    const inLoop = new Set(pkgs);
    const why = [...pkgReasons]
      .filter(([key]) => key.split(" -> ").every((p) => inLoop.has(p)))
      .map(([key, example]) => `${key}  (${example})`);
    found.push({ scope: "workspace packages", folders: pkgs, edges: why });
  }
  return found;
}

const keyOf = (loop) => `${loop.scope}: ${loop.folders.join(" ↔ ")}`;

function main() {
  const found = findLoops();
  if (process.argv.includes("--list")) {
    const allowed = found.map(({ scope, folders }) => ({ scope, folders }));
    process.stdout.write(`${JSON.stringify({ note: NOTE, allowed }, null, 2)}\n`);
    return 0;
  }
  const allowed = existsSync(ALLOW_FILE)
    ? JSON.parse(readFileSync(ALLOW_FILE, "utf8")).allowed
    : [];
  const allowedKeys = new Set(allowed.map(keyOf));
  const foundKeys = new Set(found.map(keyOf));
  const fresh = found.filter((l) => !allowedKeys.has(keyOf(l)));
  const stale = allowed.filter((l) => !foundKeys.has(keyOf(l)));
  const within = (small, big) =>
    small.scope === big.scope && small.folders.every((f) => big.folders.includes(f));
  for (const loop of fresh) {
    const shrunk = stale.find((old) => within(loop, old));
    process.stdout.write(
      shrunk === undefined
        ? `import loop: ${keyOf(loop)}\n`
        : `import loop shrank (list it instead of the larger one): ${keyOf(loop)}\n`,
    );
    for (const edge of loop.edges) process.stdout.write(`    ${edge}\n`);
  }
  for (const loop of stale)
    process.stdout.write(
      `allowed loop no longer exists as listed (remove or replace it in tooling/import-loops-allowed.json): ${keyOf(loop)}\n`,
    );
  if (fresh.length + stale.length > 0)
    process.stdout.write(
      "(`node scripts/check-import-loops.mjs --list` prints today's loops in the allow-list's shape)\n",
    );
  const perScope = new Map();
  for (const loop of found) perScope.set(loop.scope, (perScope.get(loop.scope) ?? 0) + 1);
  const counts = [...perScope].map(([scope, n]) => `${scope} ${n}`).join(", ");
  process.stdout.write(
    `import loops: ${found.length} (${counts || "none"}), ${allowed.length} allowed, ${fresh.length} new, ${stale.length} stale\n`,
  );
  return fresh.length === 0 && stale.length === 0 ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exit(main());
