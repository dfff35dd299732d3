/**
 * OCR speed and quality: `npm run bench -- --ocr [--pages 4]`. Renders `pages` pages a language (English and
 * Chinese, from the sample documents in knowledge/) as scans — 150 and 300 dpi, skewed, blurred, grainy, JPEG
 * (e2e/fixtures/make-scans.ts) — and reads each through the parse and OCR worker pools as an upload would. Prints,
 * per language: pages/s, CPU-seconds a page (the OCR worker process's), character accuracy (whitespace ignored)
 * and word accuracy (whitespace kept); then tesseract's figures on the same pages when its CLI is installed
 * (Debian tesseract-ocr, tesseract-ocr-chi-sim). The models are loaded by a first, untimed page. No assertions.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  characterAccuracy,
  layoutPages,
  renderPage,
  renderScanLike,
  type ScanLike,
  sampleText,
  wordAccuracy,
} from "@/e2e/fixtures/make-scans";
import { ocrConfig } from "@/lib/config";
import { parseDocument } from "@/lib/parse";
import { closeParsePool } from "@/lib/parse/pool";
import { processCpuMs } from "@/lib/worker/cpu";

/** The scan conditions the pages cycle through. */
const SCANS: Omit<ScanLike, "seed">[] = [
  { dpi: 150, angle: 0.8, blur: 0.6, noise: 20, quality: 60 },
  { dpi: 300, angle: -1.2, blur: 0.8, noise: 25, quality: 50 },
  { dpi: 150, angle: -0.4, blur: 0.4, noise: 12, quality: 75 },
  { dpi: 300, angle: 1.5, blur: 0.5, noise: 18, quality: 65 },
];

interface Figures {
  seconds: number;
  cpuSeconds: number;
  chars: number[];
  words: number[];
}

/** CPU milliseconds of this process's child processes that are still running (the OCR workers). */
async function childrenCpuMs(): Promise<number> {
  let sum = 0;
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === process.pid) sum += (await processCpuMs(Number(pid))) ?? 0;
    } catch {
      // ended meanwhile
    }
  }
  return sum;
}

/** CPU milliseconds of the children this process has waited for (fields cutime and cstime of /proc/self/stat). */
function waitedChildrenCpuMs(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

function hasTesseract(lang: string): boolean {
  const r = spawnSync("tesseract", ["--list-langs"], { encoding: "utf8" });
  return r.status === 0 && r.stdout.split("\n").includes(lang);
}

function print(name: string, lang: string, f: Figures) {
  const mean = (xs: number[]) => (xs.reduce((a, b) => a + b, 0) / xs.length) * 100;
  const n = f.chars.length;
  console.log(
    `  ${name.padEnd(9)} ${lang}: ${(n / f.seconds).toFixed(3)} pages/s, ${(f.cpuSeconds / n).toFixed(2)} CPU-s a page, ` +
      `character accuracy ${mean(f.chars).toFixed(2)} %, word accuracy ${mean(f.words).toFixed(2)} % (${n} pages)`,
  );
}

export async function runOcrBench(opts: { pages: number }): Promise<void> {
  const sources = {
    en: layoutPages(sampleText("employee-handbook.md").concat(sampleText("product-faq.md"))),
    zh: layoutPages(sampleText("员工手册.md")),
  };
  const cfg = ocrConfig();
  console.log(
    `OCR bench: ${opts.pages} scan-like A4 page(s) a language (150/300 dpi, skewed, blurred, grainy JPEG), ` +
      `${cfg.workers} OCR worker(s) × ${cfg.threads} onnxruntime threads (OCR_WORKERS, OCR_THREADS)`,
  );
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocr-bench-"));
  try {
    await parseDocument("warm-up.png", await renderPage(["Warm-up"])); // loads the models in the OCR worker
    for (const [lang, layout] of Object.entries(sources)) {
      const pages = await Promise.all(
        Array.from({ length: opts.pages }, async (_, i) => {
          const lines = layout[i % layout.length];
          const jpeg = await renderScanLike(lines, { ...SCANS[i % SCANS.length], seed: i + 1 });
          const file = path.join(dir, `${lang}-${i + 1}.jpg`);
          writeFileSync(file, jpeg);
          return { reference: lines.join("\n"), jpeg, file };
        }),
      );
      const ours: Figures = { seconds: 0, cpuSeconds: 0, chars: [], words: [] };
      const cpuBefore = await childrenCpuMs();
      const started = performance.now();
      for (const [i, p] of pages.entries()) {
        process.stdout.write(`\r  page ${i + 1}/${pages.length}`);
        const doc = await parseDocument(path.basename(p.file), p.jpeg);
        ours.chars.push(characterAccuracy(p.reference, doc.text));
        ours.words.push(wordAccuracy(p.reference, doc.text));
      }
      ours.seconds = (performance.now() - started) / 1000;
      ours.cpuSeconds = ((await childrenCpuMs()) - cpuBefore) / 1000;
      process.stdout.write("\r");
      print("PP-OCRv4", lang, ours);

      const tessLang = lang === "en" ? "eng" : "chi_sim";
      if (!hasTesseract(tessLang)) {
        console.log(`  tesseract ${lang}: not installed (apt-get install tesseract-ocr tesseract-ocr-chi-sim)`);
        continue;
      }
      const theirs: Figures = { seconds: 0, cpuSeconds: 0, chars: [], words: [] };
      const tessCpuBefore = waitedChildrenCpuMs();
      const tessStarted = performance.now();
      for (const p of pages) {
        const r = spawnSync("tesseract", [p.file, "stdout", "-l", tessLang], { encoding: "utf8" });
        theirs.chars.push(characterAccuracy(p.reference, r.stdout ?? ""));
        theirs.words.push(wordAccuracy(p.reference, r.stdout ?? ""));
      }
      theirs.seconds = (performance.now() - tessStarted) / 1000;
      theirs.cpuSeconds = (waitedChildrenCpuMs() - tessCpuBefore) / 1000;
      print("tesseract", lang, theirs);
    }
    console.log("  (word accuracy of Chinese counts runs between spaces, which Chinese text hardly has; read its character accuracy)");
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await closeParsePool();
  }
}
