#!/usr/bin/env node
// The layer check: a module in lib/ imports only its own folder and the folders below it, in the order
// the fenced `layers` block of docs/architecture.md gives (lowest first). Every lib/ folder and top-level
// lib/ file must be listed there. Tests and their helpers are held to it like any module, with no exception. It also
// holds the one order between top-level folders that is not obvious: scripts/ (the CLI and benches) may use the
// e2e/ helpers, so nothing in e2e/ imports scripts/; and e2e specs find their servers only through
// e2e/helpers/servers.ts (each Playwright worker has its own). Prints each import that points up and exits 1 when there is any.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The layer order, lowest first, from docs/architecture.md. */
export function readLayers(doc = fs.readFileSync(path.join(root, "docs/architecture.md"), "utf8")) {
  const block = doc.match(/```layers\n([\s\S]*?)```/);
  if (!block) throw new Error("docs/architecture.md has no ```layers block");
  return block[1].split(/\s+/).filter(Boolean);
}

const IMPORT = /(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|import\s+["']([^"']+)["']/g;

/** `lib/x/...` → "x"; `lib/x.ts` (or `lib/x`) → "x". */
const unitOf = (rel) => rel.split("/")[1].replace(/\.(test\.)?(d\.)?(ts|tsx|mjs)$/, "");

function sourceFiles(dir, out = []) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) sourceFiles(p, out);
    else if (/\.(ts|tsx|mjs)$/.test(e.name)) out.push(p);
  }
  return out;
}

/** Every import from a lib/ module to a lib/ folder above its own, as "file: specifier (from → to)". */
export function upwardImports(layers = readLayers()) {
  const rank = new Map(layers.map((name, i) => [name, i]));
  const found = [];
  const units = new Set();
  for (const file of sourceFiles(path.join(root, "lib"))) {
    const rel = path.relative(root, file).split(path.sep).join("/");
    const from = unitOf(rel);
    units.add(from);
    for (const m of fs.readFileSync(file, "utf8").matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? m[3];
      let target = null;
      if (spec.startsWith("@/lib/")) target = `lib/${spec.slice(6)}`;
      else if (spec.startsWith(".")) target = path.posix.normalize(path.posix.join(path.posix.dirname(rel), spec));
      if (!target?.startsWith("lib/")) continue;
      const to = unitOf(target);
      if (to === from) continue;
      if (rank.get(to) > rank.get(from)) found.push(`${rel}: ${spec} (${from} → ${to})`);
    }
  }
  const unlisted = [...units].filter((u) => !rank.has(u)).sort();
  return { found, unlisted };
}

/** Top-level folders whose files must not import the folder named: what both need lives below them, in lib/. */
const FOLDER_BELOW = { e2e: "scripts" };

/** Every import from a file in a FOLDER_BELOW key to the folder above it, as "file: specifier (from → to)". */
export function folderBackImports(below = FOLDER_BELOW) {
  const found = [];
  for (const [from, to] of Object.entries(below)) {
    for (const file of sourceFiles(path.join(root, from))) {
      const rel = path.relative(root, file).split(path.sep).join("/");
      for (const m of fs.readFileSync(file, "utf8").matchAll(IMPORT)) {
        const spec = m[1] ?? m[2] ?? m[3];
        let target = null;
        if (spec.startsWith("@/")) target = spec.slice(2);
        else if (spec.startsWith(".")) target = path.posix.normalize(path.posix.join(path.posix.dirname(rel), spec));
        if (target?.startsWith(`${to}/`)) found.push(`${rel}: ${spec} (${from} → ${to})`);
      }
    }
  }
  return found;
}

/** The two e2e modules that know where the servers are; every other file in e2e/ asks e2e/helpers/servers.ts. */
const SERVER_MODULES = new Set(["e2e/helpers/server-sets.ts", "e2e/helpers/servers.ts"]);
const SERVER_RULES = [
  [
    /import\s*\{[^}]*(?<!type\s)\btest\b[^}]*\}\s*from\s*["']@playwright\/test["']/,
    "imports test from @playwright/test, which has no baseURL: take test from e2e/helpers/servers.ts",
  ],
  [/from\s*["'][./]*playwright\.config["']/, "imports playwright.config.ts: the ports and secrets are in e2e/helpers/servers.ts"],
  [
    /process\.env\.(E2E_PORT_BASE|TEST_DATA_DIR)\b/,
    "reads E2E_PORT_BASE or TEST_DATA_DIR: use PORT_BASE and WORKER_DATA_DIR of e2e/helpers/servers.ts, this worker's own",
  ],
];

/**
 * Files in e2e/ that find servers other than through e2e/helpers/servers.ts, as "file: what". Specs run on several
 * workers, each with its own server set: a spec that took a port from E2E_PORT_BASE would meet another worker's.
 * `sources` (path → text) stands in for the files of e2e/.
 */
export function serverFindings(sources) {
  const files =
    sources ??
    Object.fromEntries(
      sourceFiles(path.join(root, "e2e")).map((f) => [path.relative(root, f).split(path.sep).join("/"), fs.readFileSync(f, "utf8")]),
    );
  const found = [];
  for (const [rel, text] of Object.entries(files)) {
    if (SERVER_MODULES.has(rel)) continue;
    for (const [rule, what] of SERVER_RULES) if (rule.test(text)) found.push(`${rel}: ${what}`);
  }
  return found;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { found, unlisted } = upwardImports();
  const back = [...folderBackImports(), ...serverFindings()];
  for (const u of unlisted) console.log(`lib/${u} is not in the layers block of docs/architecture.md`);
  for (const f of [...found, ...back]) console.log(f);
  const n = found.length + unlisted.length + back.length;
  console.log(
    n
      ? `${n} layer finding(s)`
      : "layers: every lib/ import points down, e2e/ imports nothing from scripts/ and finds its servers through e2e/helpers/servers.ts",
  );
  process.exit(n ? 1 : 0);
}
