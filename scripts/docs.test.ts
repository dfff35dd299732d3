/**
 * The documentation is checked like code: the configuration table in docs/configuration.md lists exactly the
 * environment variables the code reads, .env.example lists exactly its settings, every relative link and
 * anchor in README.md and docs/ resolves, the README stays short, and no documentation file keeps the
 * run-by-run history that belongs in commit messages.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FORMAT_LIST } from "@/lib/parse/formats";

const ROOT = path.resolve(import.meta.dirname, "..");
const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), "utf8");
const rel = (abs: string) => path.relative(ROOT, abs).split(path.sep).join("/");

/** Every folder and entry point whose code may read the environment. */
const CODE_DIRS = ["app", "lib", "mcp", "components", "scripts", "e2e"];
const CODE_FILES = ["server.mjs", "instrumentation.ts", "next.config.ts", "playwright.config.ts", "vitest.config.ts"];
const CODE_EXT = /\.(ts|tsx|mts|mjs|js|cjs|sh)$/;
/** Tests set variables for the code under test; what they read themselves is the suite's own business. */
const isTestFile = (file: string) => /\.test\.(ts|tsx|mts)$/.test(file);

function walk(dir: string, keep: (file: string) => boolean, skipDir: (dir: string) => boolean = () => false): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === "node_modules" || entry.name.startsWith(".") || skipDir(full)) continue;
      out.push(...walk(full, keep, skipDir));
    } else if (keep(full)) out.push(full);
  }
  return out;
}

/** The ways the code reads a variable: process.env.X, process.env["X"], env.X (an env parameter), intEnv/listEnv("X"), ${X:-…} in shell. */
const READ_PATTERNS = [
  /\bprocess\.env\.([A-Z][A-Z0-9_]*)\b/g,
  /\bprocess\.env\[\s*["'`]([A-Z][A-Z0-9_]*)["'`]\s*\]/g,
  /(?<![\w.])env\.([A-Z][A-Z0-9_]*)\b/g,
  /\b(?:intEnv|listEnv)\(\s*["'`]([A-Z][A-Z0-9_]*)["'`]/g,
];
const SHELL_PATTERN = /\$\{([A-Z][A-Z0-9_]*):?[-=?+]/g;

/** Variable name → the first file that reads it. */
function variablesReadByCode(): Map<string, string> {
  const files = [
    ...CODE_DIRS.flatMap((d) => walk(path.join(ROOT, d), (f) => CODE_EXT.test(f) && !isTestFile(f))),
    ...CODE_FILES.map((f) => path.join(ROOT, f)).filter((f) => fs.existsSync(f)),
  ];
  const found = new Map<string, string>();
  for (const file of files) {
    const text = fs.readFileSync(file, "utf8");
    const patterns = file.endsWith(".sh") ? [SHELL_PATTERN] : READ_PATTERNS;
    for (const pattern of patterns) {
      for (const m of text.matchAll(pattern)) if (!found.has(m[1])) found.set(m[1], rel(file));
    }
  }
  return found;
}

const KINDS = ["setting", "object store", "internal", "tests"] as const;
type Kind = (typeof KINDS)[number];

/** The rows of the configuration table: variable → kind. */
function configurationTable(): Map<string, Kind> {
  const rows = new Map<string, Kind>();
  for (const line of read("docs/configuration.md").split("\n")) {
    const m = /^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|\s*([^|]+?)\s*\|/.exec(line);
    if (!m) continue;
    const kind = m[2] as Kind;
    if (!KINDS.includes(kind)) throw new Error(`docs/configuration.md: ${m[1]} has kind "${m[2]}", not one of ${KINDS.join(", ")}`);
    if (rows.has(m[1])) throw new Error(`docs/configuration.md lists ${m[1]} twice`);
    rows.set(m[1], kind);
  }
  return rows;
}

/** Variables .env.example sets or shows commented out (`NAME=…` or `# NAME=…` at a line's start). */
function envExample(): Set<string> {
  const names = new Set<string>();
  for (const line of read(".env.example").split("\n")) {
    const m = /^#?\s*([A-Z][A-Z0-9_]*)=/.exec(line);
    if (m) names.add(m[1]);
  }
  return names;
}

/** Kinds an operator sets, so .env.example shows them. */
const IN_ENV_EXAMPLE: Kind[] = ["setting", "object store"];

describe("docs/configuration.md and .env.example", () => {
  const code = variablesReadByCode();
  const table = configurationTable();

  it("finds the variables the code reads (the scanner itself works)", () => {
    for (const name of ["DATA_DIR", "MAX_UPLOAD_MB", "RERANK_BASE_URL", "SERVER_MALLOC", "REBUILD", "TEST_DATA_DIR"]) {
      expect(code.has(name), `${name} should be found in the code`).toBe(true);
    }
  });

  it("lists every environment variable the code reads", () => {
    const missing = [...code].filter(([name]) => !table.has(name)).map(([name, file]) => `${name} (read in ${file})`);
    expect(missing, `Add these to the table in docs/configuration.md (kind, default, what it does):\n  ${missing.join("\n  ")}\n`).toEqual(
      [],
    );
  });

  it("lists no variable the code does not read", () => {
    const stale = [...table].filter(([name, kind]) => kind !== "object store" && !code.has(name)).map(([name]) => name);
    expect(
      stale,
      `docs/configuration.md lists variables no code reads (remove the rows, or mark LanceDB's as "object store"):\n  ${stale.join("\n  ")}\n`,
    ).toEqual([]);
  });

  it(".env.example shows every setting of the table", () => {
    const example = envExample();
    const missing = [...table].filter(([name, kind]) => IN_ENV_EXAMPLE.includes(kind) && !example.has(name)).map(([name]) => name);
    expect(
      missing,
      `Add these to .env.example (commented out with their default, and a one-line comment):\n  ${missing.join("\n  ")}\n`,
    ).toEqual([]);
  });

  it(".env.example shows only settings of the table", () => {
    const extra = [...envExample()].filter((name) => !IN_ENV_EXAMPLE.includes(table.get(name) as Kind));
    expect(
      extra,
      `.env.example shows variables that are not settings in docs/configuration.md's table:\n  ${extra.join("\n  ")}\n`,
    ).toEqual([]);
  });
});

/** Markdown lines outside fenced code blocks, with inline code removed. */
function proseLines(markdown: string): string[] {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of markdown.split("\n")) {
    const f = /^\s*(```|~~~)/.exec(line);
    if (f) {
      if (!fence) fence = f[1];
      else if (line.trim().startsWith(fence)) fence = null;
      out.push("");
      continue;
    }
    out.push(fence ? "" : line.replace(/`[^`]*`/g, ""));
  }
  return out;
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens (github-slugger's rule). */
function githubSlug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors a Markdown file offers: its headings' slugs (repeats get -1, -2, …) and explicit ids. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    if (fence) continue;
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      const base = githubSlug(h[1].replace(/`/g, ""));
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
  }
  return anchors;
}

const LINK = /!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const HTML_LINK = /\b(?:src|href)="([^"]+)"/g;

/** Relative links of a Markdown file that do not resolve: a missing file, or an anchor its target lacks. */
function brokenLinks(file: string): string[] {
  const abs = path.join(ROOT, file);
  const text = fs.readFileSync(abs, "utf8");
  const broken: string[] = [];
  proseLines(text).forEach((line, i) => {
    const targets = [...line.matchAll(LINK), ...line.matchAll(HTML_LINK)].map((m) => m[1]);
    for (const target of targets) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) continue;
      const [linkPath, anchor] = target.split("#", 2);
      const dest = linkPath ? path.resolve(path.dirname(abs), decodeURIComponent(linkPath)) : abs;
      const where = `${file}:${i + 1}: ${target}`;
      if (!fs.existsSync(dest)) {
        broken.push(`${where} (no such file)`);
        continue;
      }
      if (anchor !== undefined && dest.endsWith(".md") && !anchorsOf(fs.readFileSync(dest, "utf8")).has(anchor)) {
        broken.push(`${where} (no heading with anchor #${anchor} in ${rel(dest)})`);
      }
    }
  });
  return broken;
}

const docsFiles = () => ["README.md", ...walk(path.join(ROOT, "docs"), (f) => f.endsWith(".md")).map(rel)];

describe("links in README.md and docs/", () => {
  it("computes GitHub's anchors", () => {
    expect(githubSlug("claude.ai and ChatGPT")).toBe("claudeai-and-chatgpt");
    expect(githubSlug("Upgrades and --reindex")).toBe("upgrades-and---reindex");
    expect(githubSlug("Teams: accounts, roles, invites and single sign-on")).toBe("teams-accounts-roles-invites-and-single-sign-on");
    expect(githubSlug("Folds only now and then, never during a bulk ingest")).toBe("folds-only-now-and-then-never-during-a-bulk-ingest");
    expect(anchorsOf("# A\n## B\n```\n# not a heading\n```\n## B\n")).toEqual(new Set(["a", "b", "b-1"]));
  });

  it("finds a broken link and a broken anchor (the checker itself works)", () => {
    const dir = fs.mkdtempSync(path.join(ROOT, "docs", ".links-"));
    try {
      const file = path.join(dir, "page.md");
      fs.writeFileSync(file, "# Page\n\n[ok](#page) [gone](missing.md) [bad anchor](#nowhere) `[code](missing.md)`\n");
      expect(brokenLinks(rel(file)).map((b) => b.replace(/^.*?: /, ""))).toEqual([
        "missing.md (no such file)",
        `#nowhere (no heading with anchor #nowhere in ${rel(file)})`,
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("every relative link and anchor resolves", () => {
    const files = docsFiles();
    expect(files.length).toBeGreaterThan(5);
    const broken = files.flatMap(brokenLinks);
    expect(broken, `Broken links:\n  ${broken.join("\n  ")}\n`).toEqual([]);
  });
});

/** Run-by-run history ("stop 42", "run C", "runs G / H", "two stops ago") belongs in commit messages. */
const HISTORY = [
  /\b[Ss]tops? \d+/,
  /\b(?:this|last|that|previous|earlier|next) stops?\b/i,
  /\bstops ago\b/i,
  /\b[Rr]uns? [A-Z](?:\b|[–/-])/,
];

/** Documentation files of the repository; the eval sets' documents under fixtures/eval/<set>/docs are data. */
function markdownFiles(): string[] {
  return walk(
    ROOT,
    (f) => f.endsWith(".md"),
    (d) => /fixtures[/\\]eval[/\\][^/\\]+[/\\]docs$/.test(d) || rel(d) === "dist",
  ).map(rel);
}

describe("README.md and the documentation files", () => {
  it("README.md and docs/getting-started.md name the formats of the one list (lib/parse/formats.ts)", () => {
    for (const file of ["README.md", "docs/getting-started.md"]) expect(read(file).replace(/\s+/g, " "), file).toContain(FORMAT_LIST);
  });

  it("README.md is at most 200 lines and starts with the two commands", () => {
    const readme = read("README.md");
    expect(readme.trimEnd().split("\n").length).toBeLessThanOrEqual(200);
    expect(readme).toContain("bash scripts/app.sh      # install");
    expect(readme).toContain("bash scripts/test.sh     # every test");
  });

  it("every docs/ page starts by saying what the reader will have at the end", () => {
    const pages = walk(path.join(ROOT, "docs"), (f) => f.endsWith(".md")).map(rel);
    const without = pages.filter((page) => !/^# .+\n\n\*\*At the end of this page\*\*/.test(read(page)));
    expect(without, `Start these pages with "**At the end of this page** …" under the title:\n  ${without.join("\n  ")}\n`).toEqual([]);
  });

  it("the history check catches history", () => {
    const caught = ["Stop 42: small pages", "measured in stop 40", "runs G / H", "run C", "Runs I–L", "two stops ago", "this stop"];
    for (const text of caught)
      expect(
        HISTORY.some((p) => p.test(text)),
        text,
      ).toBe(true);
    for (const text of ["Stop leaves a mark", "run `npm start`", "a run of the bench", "stops the server"]) {
      expect(
        HISTORY.some((p) => p.test(text)),
        text,
      ).toBe(false);
    }
  });

  it("no documentation file names a stop by number or a run by letter", () => {
    const files = markdownFiles();
    expect(files).toContain("README.md");
    const hits: string[] = [];
    for (const file of files) {
      read(file)
        .split("\n")
        .forEach((line, i) => {
          const p = HISTORY.find((r) => r.test(line));
          if (p) hits.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
        });
    }
    expect(hits, `State measured facts in the present tense (history goes into commit messages):\n  ${hits.join("\n  ")}\n`).toEqual([]);
  });
});
