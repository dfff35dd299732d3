/**
 * components/ runs in the browser. Biome's import rule (biome.json) checks each file's own imports; this
 * follows them through lib/ to the end, so a browser-safe module that reaches a server one two steps away
 * (as the highlighter once pulled the index's Porter2 stemmer in through lib/tokenize) fails here.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");

/**
 * What the browser must never bundle: Node built-ins, native or server packages, and the server's modules
 * (the ones biome.json names for components/, plus the full-text index's tokens).
 */
const SERVER_ONLY: RegExp[] = [
  /^node:/,
  /^(?:fs|path|os|crypto|child_process|worker_threads)$/,
  /^wink-porter2-stemmer$/,
  /^@node-rs\//,
  /^@lancedb\//,
  /^lib\/(?:store|server)\//,
  /^lib\/ingest\/(?!upload-events|fields)/,
  /^lib\/(?:config|store|auth\/principal|auth\/accounts\/store|auth\/accounts\/service|tokenize\/index-text|tokenize\/segment)\.ts$/,
];

/** Imports that end up in the bundle: `import type` and `export type` do not. */
const IMPORT_RE = /(?:^|\n)\s*(?:import|export)\s+(?!type\s)(?:[^"';]*?\sfrom\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function importsOf(source: string): string[] {
  return [...source.matchAll(IMPORT_RE)].map((m) => m[1] ?? m[2]);
}

/** A module specifier as a repository path (for our files) or the package name (for others). */
function resolve(spec: string, from: string): string {
  if (!spec.startsWith("@/") && !spec.startsWith(".")) return spec;
  const base = spec.startsWith("@/") ? path.join(ROOT, spec.slice(2)) : path.resolve(path.dirname(path.join(ROOT, from)), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts"), path.join(base, "index.tsx")]) {
    if (/\.(?:tsx?|mjs|js|json|css)$/.test(candidate) && existsSync(candidate)) return path.relative(ROOT, candidate);
  }
  throw new Error(`${from}: cannot resolve ${spec}`);
}

function filesUnder(rel: string): string[] {
  return readdirSync(path.join(ROOT, rel), { withFileTypes: true }).flatMap((e) => {
    const p = path.posix.join(rel, e.name);
    if (e.isDirectory()) return filesUnder(p);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [p] : [];
  });
}

/** Every server-only module reachable from `entries`, with the chain of imports that reaches it. */
function serverReach(entries: string[]): string[] {
  const seen = new Map<string, string[]>(entries.map((e) => [e, [e]]));
  const queue = [...entries];
  const found: string[] = [];
  while (queue.length) {
    const file = queue.shift()!;
    if (!/\.tsx?$/.test(file)) continue;
    for (const spec of importsOf(readFileSync(path.join(ROOT, file), "utf8"))) {
      const target = resolve(spec, file);
      const chain = [...seen.get(file)!, target];
      if (SERVER_ONLY.some((re) => re.test(target))) found.push(chain.join(" → "));
      else if (!seen.has(target) && target.startsWith("lib/")) {
        seen.set(target, chain);
        queue.push(target);
      }
    }
  }
  return found;
}

describe("the browser bundle", () => {
  it("reaches no server module from components/, however many imports away", () => {
    const entries = filesUnder("components");
    expect(entries.length).toBeGreaterThan(30);
    expect(serverReach(entries)).toEqual([]);
  });

  it("would catch a server module two imports away", () => {
    // lib/chunk/indexed.ts builds the index text: a component importing it reaches the Porter2 stemmer.
    expect(serverReach(["lib/chunk/indexed.ts"]).some((chain) => chain.endsWith("lib/tokenize/index-text.ts"))).toBe(true);
    expect(importsOf('import type { A } from "x";\nimport { b } from "y";\nexport { c } from "./z";')).toEqual(["y", "./z"]);
  });
});
