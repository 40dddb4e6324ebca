import { defineConfig } from "vite";

// Preact through esbuild's automatic JSX runtime: no Babel preset needed.
export default defineConfig({
  base: "/admin/",
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    assetsDir: "assets",
    // The strict CSP forbids inline script: no polyfill snippet, no inlined assets.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    target: "es2022",
    sourcemap: false,
    reportCompressedSize: false,
    // hls.js is its own chunk, loaded only when a preview starts.
    chunkSizeWarningLimit: 700,
  },
});
