import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Chunk } from "@/lib/types";
import { chunkText, DEFAULT_CHUNK_SIZE, embeddingText, HEADING_SEPARATOR } from "./index";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const evalDir = path.resolve(repoRoot, "fixtures/eval");

/** The hard invariants every chunking must satisfy. */
function checkInvariants(source: string, chunks: Chunk[], size: number): void {
  const covered = new Uint8Array(source.length);
  chunks.forEach((c, i) => {
    expect(c.index).toBe(i);
    expect(c.text).toBe(source.slice(c.start, c.end));
    expect(c.text.length).toBeLessThanOrEqual(size);
    expect(c.text.trim()).toBe(c.text);
    expect(c.text.length).toBeGreaterThan(0);
    if (i > 0) {
      expect(c.start).toBeGreaterThan(chunks[i - 1].start);
      expect(c.end).toBeGreaterThan(chunks[i - 1].end);
    }
    // Never cut through a surrogate pair (emoji, rare Han characters).
    expect(/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(c.text)).toBe(false);
    covered.fill(1, c.start, c.end);
  });
  for (let i = 0; i < source.length; i++) {
    if (!covered[i] && /\S/.test(source[i])) {
      throw new Error(`character ${JSON.stringify(source[i])} at ${i} is in no chunk: …${source.slice(i - 20, i + 20)}…`);
    }
  }
}

/** Small deterministic PRNG (mulberry32) so property tests are reproducible. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomDocument(rand: () => number): string {
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  const word = () =>
    pick(["leave", "policy", "the", "days", "approval", "a", "Nimbus", "sync", "2024", "é", "😀", "x".repeat(1 + Math.floor(rand() * 30))]);
  const han = () => pick(["员工", "报销", "申请单", "病假", "证明", "年假", "天", "𠀀", "的", "审批"]);
  const parts: string[] = [];
  const n = 5 + Math.floor(rand() * 40);
  for (let i = 0; i < n; i++) {
    const r = rand();
    if (r < 0.12) parts.push(`${"#".repeat(1 + Math.floor(rand() * 6))} ${word()} ${han()}\n`);
    else if (r < 0.17) parts.push(`\`\`\`\n# not a heading\n${word()}\n\`\`\`\n`);
    else if (r < 0.4)
      parts.push(Array.from({ length: 1 + Math.floor(rand() * 25) }, word).join(" ") + pick([". ", "! ", "? ", ".", "\n", " "]));
    else if (r < 0.65)
      parts.push(Array.from({ length: 1 + Math.floor(rand() * 40) }, han).join("") + pick(["。", "！", "？", "；", "，", "\n", ""]));
    else if (r < 0.75) parts.push(pick(["\n\n", "\n \n\t\n", "   ", "\n"]));
    else if (r < 0.8) parts.push(han().repeat(50 + Math.floor(rand() * 300)));
    else if (r < 0.85) parts.push(pick(["#hashtag ", "#\n", "####### seven\n", "    # indented code\n", "## Closed ##\n"]));
    else if (r < 0.9)
      parts.push(
        `\n| ${word()} | ${han()} |\n| --- | --- |\n${Array.from({ length: Math.floor(rand() * 30) }, () => `| ${word()} ${word()}. ${word()} | ${han()} |`).join("\n")}\n`,
      );
    else if (r < 0.93)
      parts.push(
        `${word()} ${word()}:\n${Array.from({ length: Math.floor(rand() * 20) }, () => `${pick(["-", "*", "1."])} ${word()} ${han()}`).join("\n")}\n`,
      );
    else parts.push(`${word()} ${han()} `);
  }
  return parts.join("");
}

describe("chunkText invariants", () => {
  it("hold for random documents, sizes and overlaps", () => {
    const rand = rng(20240601);
    for (let run = 0; run < 300; run++) {
      const doc = randomDocument(rand);
      const size = 8 + Math.floor(rand() * 600);
      const overlap = Math.floor(rand() * 120);
      try {
        checkInvariants(doc, chunkText(doc, { size, overlap }), size);
      } catch (err) {
        throw new Error(`run ${run} size ${size} overlap ${overlap}: ${(err as Error).message}\n${JSON.stringify(doc)}`);
      }
    }
  });

  for (const set of ["cmrc2018-zh-subset", "squad1.1-en-subset", "covidqa-en-subset"]) {
    it(`hold for every document of ${set}`, () => {
      const dir = path.join(evalDir, set, "docs");
      const files = fs.readdirSync(dir).filter((f) => f.endsWith(".md"));
      expect(files.length).toBeGreaterThanOrEqual(10);
      for (const file of files) {
        const text = fs.readFileSync(path.join(dir, file), "utf8");
        for (const [size, overlap] of [
          [500, 60],
          [200, 30],
        ]) {
          const chunks = chunkText(text, { size, overlap });
          checkInvariants(text, chunks, size);
          expect(chunks[0].headingPath.length).toBe(1);
        }
      }
    });
  }

  it("hold for the sample knowledge documents", () => {
    const dir = path.join(repoRoot, "knowledge");
    const files = fs.readdirSync(dir);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const text = fs.readFileSync(path.join(dir, file), "utf8");
      checkInvariants(text, chunkText(text), DEFAULT_CHUNK_SIZE);
    }
  });
});

describe("chunkText rules", () => {
  it("returns a single chunk for a short text and nothing for whitespace", () => {
    expect(chunkText("  Hello world.  ")).toEqual([{ index: 0, headingPath: [], text: "Hello world.", start: 2, end: 14 }]);
    expect(chunkText(" \n\n\t ")).toEqual([]);
    expect(chunkText("")).toEqual([]);
  });

  it("splits at Markdown headings and records the heading path", () => {
    const doc =
      "Intro line.\n\n# Handbook\n\nWelcome.\n\n## Leave\n\nGeneral rules.\n\n### Sick leave\n\nBring a note.\n\n## Expenses\n\nKeep receipts.\n";
    const chunks = chunkText(doc);
    expect(chunks.map((c) => [c.headingPath, c.text])).toEqual([
      [[], "Intro line."],
      [["Handbook"], "# Handbook\n\nWelcome."],
      [["Handbook", "Leave"], "## Leave\n\nGeneral rules."],
      [["Handbook", "Leave", "Sick leave"], "### Sick leave\n\nBring a note."],
      [["Handbook", "Expenses"], "## Expenses\n\nKeep receipts."],
    ]);
  });

  it("merges a heading with no text of its own into its first subsection", () => {
    const chunks = chunkText("# 员工手册\n\n## 请假制度\n\n### 病假\n\n需要医院证明。\n\n## 报销\n\n先填单。");
    expect(chunks.map((c) => [c.headingPath, c.text])).toEqual([
      [["员工手册", "请假制度", "病假"], "# 员工手册\n\n## 请假制度\n\n### 病假\n\n需要医院证明。"],
      [["员工手册", "报销"], "## 报销\n\n先填单。"],
    ]);
  });

  it("ignores # lines inside fenced code blocks, hashtags and closing #s", () => {
    const doc = "# Setup\n\n```bash\n# install\nnpm i\n```\n\n~~~\n## not either\n~~~\n\n#hashtag\n\n## Done ##\n\nok";
    const chunks = chunkText(doc);
    expect(chunks.map((c) => c.headingPath)).toEqual([["Setup"], ["Setup", "Done"]]);
    expect(chunks[0].text).toContain("# install");
    expect(chunks[0].text).toContain("## not either");
  });

  it("packs paragraphs up to the size and prefers paragraph breaks", () => {
    const para = (n: number) => `Paragraph ${n} sentence one is here. Sentence two follows it.`;
    const doc = Array.from({ length: 6 }, (_, i) => para(i)).join("\n\n");
    const chunks = chunkText(doc, { size: 160, overlap: 0 }); // a third first sentence would still fit
    expect(chunks.map((c) => c.text)).toEqual([`${para(0)}\n\n${para(1)}`, `${para(2)}\n\n${para(3)}`, `${para(4)}\n\n${para(5)}`]);
  });

  it("splits Chinese text without spaces at sentence ends", () => {
    const s = ["员工先填写报销申请单。", "直属主管审批！", "财务部复核后付款？", "逾期不予受理；", "请按时提交。"];
    const chunks = chunkText(s.join("").repeat(3), { size: 40, overlap: 0 });
    for (const c of chunks) expect(c.text).toMatch(/[。！？；]$/);
    expect(chunks.length).toBeGreaterThan(2);
  });

  it("splits English at . ! ? followed by a space, not inside numbers", () => {
    const doc = "Version 3.5 is out. It costs 8.99 dollars! Really? Yes.";
    const chunks = chunkText(doc, { size: 24, overlap: 0 });
    expect(chunks.map((c) => c.text)).toEqual(["Version 3.5 is out.", "It costs 8.99 dollars!", "Really? Yes."]);
  });

  it("forces a character split for a sentence longer than the size", () => {
    const long = "报销".repeat(300);
    const chunks = chunkText(long, { size: 100, overlap: 20 });
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(100);
    checkInvariants(long, chunks, 100);
    // Forced pieces still overlap by the requested amount.
    expect(chunks[1].start).toBe(chunks[0].end - 20);
  });

  it("splits an over-long Latin sentence at spaces rather than inside words", () => {
    const words = Array.from({ length: 80 }, (_, i) => `word${i}`).join(" ");
    const chunks = chunkText(words, { size: 60, overlap: 0 });
    for (const c of chunks) expect(c.text).toMatch(/^word\d+( word\d+)*$/);
  });

  it("overlaps chunks of a section by whole trailing sentences", () => {
    const sentences = Array.from({ length: 12 }, (_, i) => `Rule ${i} applies here.`);
    const chunks = chunkText(sentences.join(" "), { size: 100, overlap: 45 });
    expect(chunks.length).toBeGreaterThan(2);
    for (let i = 1; i < chunks.length; i++) {
      const shared = chunks[i - 1].end - chunks[i].start;
      expect(shared).toBeGreaterThan(0);
      expect(shared).toBeLessThanOrEqual(45);
      expect(chunks[i].text).toMatch(/^Rule \d+ applies here\./); // starts at a sentence
    }
  });

  it("does not overlap across sections", () => {
    const body = "这是一句比较长的说明文字。".repeat(10);
    const chunks = chunkText(`## 年假\n\n${body}\n\n## 病假\n\n${body}`, { size: 60, overlap: 20 });
    const firstSick = chunks.findIndex((c) => c.headingPath[0] === "病假");
    expect(chunks[firstSick].text.startsWith("## 病假")).toBe(true);
    expect(chunks[firstSick].start).toBeGreaterThanOrEqual(chunks[firstSick - 1].end);
  });

  it("assigns the page that contains each chunk's start", () => {
    const page1 = "First page text. ".repeat(10);
    const page2 = "Second page text. ".repeat(10);
    const doc = page1 + page2;
    const chunks = chunkText(doc, {
      size: 60,
      overlap: 0,
      pages: [
        { page: 1, start: 0 },
        { page: 2, start: page1.length },
      ],
    });
    for (const c of chunks) expect(c.page).toBe(c.start < page1.length ? 1 : 2);
    expect(new Set(chunks.map((c) => c.page))).toEqual(new Set([1, 2]));
    expect(chunkText(doc)[0].page).toBeUndefined();
  });

  it("never lets a chunk run across a page boundary", () => {
    const pages = ["Alpha page one.", "Bravo page two.", "Charlie page three."];
    const starts: { page: number; start: number }[] = [];
    let doc = "";
    pages.forEach((p, i) => {
      starts.push({ page: i + 1, start: doc.length });
      doc += `${p}\n\n`;
    });
    const chunks = chunkText(doc, { size: 500, pages: starts });
    expect(chunks.map((c) => [c.page, c.text])).toEqual(pages.map((p, i) => [i + 1, p]));
  });

  it("keeps a section whole up to the default size, heading and all", () => {
    const body = Array.from({ length: 20 }, (_, i) => `Sentence ${i} of the leave section is here.`).join(" ");
    const chunks = chunkText(`# Handbook\n\n## Leave\n\n${body}\n\n## Expenses\n\nKeep receipts.`);
    expect(body.length).toBeGreaterThan(500);
    expect(chunks.map((c) => c.headingPath.at(-1))).toEqual(["Leave", "Expenses"]);
  });

  it("keeps a table with its lead-in and header; a split table's rows carry the header as lead", () => {
    const lead = "Use the channels in the table below to reach a leader.";
    const rows = Array.from({ length: 30 }, (_, i) => `| Leader number ${i} | #channel-${i} |`);
    const table = ["| Leader | Channel |", "| --- | --- |", ...rows].join("\n");
    const filler = "Filler sentence about something else entirely. ".repeat(6).trim();
    const doc = `## Contacts\n\n${filler}\n\n${lead}\n\n${table}\n\nAfter the table.`;
    const size = 600;
    const chunks = chunkText(doc, { size, overlap: 0 });
    checkInvariants(doc, chunks, size);
    // The lead-in goes with the table's head, not with the filler before it.
    const head = chunks.find((c) => c.text.includes("| Leader | Channel |"))!;
    expect(head.text).toContain(lead);
    expect(head.text).toContain("| Leader number 0 |");
    // Cut only between rows; every later piece of the table carries the header row.
    for (const c of chunks.filter((x) => x !== head && x.text.includes("| Leader number"))) {
      expect(c.text).toMatch(/^\| Leader number \d+ \| #channel-\d+ \|/);
      expect(c.lead).toBe("| Leader | Channel |\n| --- | --- |");
      expect(embeddingText(c)).toBe(`Contacts\n${c.lead}\n${c.text}`);
    }
    expect(chunks.filter((c) => c.text.includes("| Leader number")).length).toBeGreaterThan(1);
  });

  it("keeps a list with the sentence that introduces it", () => {
    const filler = "Some earlier paragraph with words that fill the chunk. ".repeat(5).trim();
    const intro = "To request leave, do the following:";
    const items = ["- open the HR system", "- choose the dates", "- ask your manager to approve"].join("\n");
    const doc = `${filler}\n\n${intro}\n${items}`;
    const chunks = chunkText(doc, { size: 300, overlap: 0 });
    checkInvariants(doc, chunks, 300);
    const withList = chunks.find((c) => c.text.includes("- open the HR system"))!;
    expect(withList.text).toContain(intro);
    // A list cut between items carries its intro sentence as the later piece's lead.
    const long = `${intro}\n${Array.from({ length: 20 }, (_, i) => `- item number ${i} of the list`).join("\n")}`;
    const pieces = chunkText(long, { size: 200, overlap: 0 });
    expect(pieces.length).toBeGreaterThan(1);
    for (const p of pieces.slice(1)) {
      expect(p.text).toMatch(/^- item number/);
      expect(p.lead).toBe(intro);
    }
  });

  it("reads attribute headings and keeps HTML and attribute blocks out of heading paths", () => {
    const doc =
      '# Handbook {#top}\n\n## <i class="fa fa-plane"></i> Travel {#travel .wide}\n\nBook early.\n\nExpenses {.h2}\n\nKeep receipts.';
    expect(chunkText(doc).map((c) => c.headingPath)).toEqual([
      ["Handbook", "Travel"],
      ["Handbook", "Expenses"],
    ]);
  });

  it("rejects a nonsensical size", () => {
    expect(() => chunkText("x", { size: 0 })).toThrow(RangeError);
  });
});

describe("embeddingText", () => {
  it("prefixes the heading path as a first line", () => {
    expect(HEADING_SEPARATOR).toBe(" › ");
    expect(embeddingText({ headingPath: ["Handbook", "Leave", "Sick leave"], text: "Bring a note." })).toBe(
      "Handbook › Leave › Sick leave\nBring a note.",
    );
    expect(embeddingText({ headingPath: [], text: "Plain." })).toBe("Plain.");
  });
});
