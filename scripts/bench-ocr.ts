/**
 * OCR speed, memory and quality: `npm run bench -- --ocr [--pages 4]`. Renders `pages` pages a language (English and
 * Chinese, from the sample documents in knowledge/) as scans — 150 and 300 dpi, skewed, blurred, grainy, JPEG
 * (e2e/fixtures/make-scans.ts) — and reads each through the parse and OCR worker pools as an upload would. Prints,
 * per language: pages/s, CPU-seconds a page of the OCR worker processes and of the whole process tree (this process,
 * its parse threads and the OCR workers; not the bench's own sampling of memory), character accuracy (whitespace ignored) and word accuracy (whitespace
 * kept), and the OCR worker's peak resident memory; then tesseract's figures on the same pages where its CLI is
 * installed (Debian tesseract-ocr, tesseract-ocr-chi-sim), on one thread (OMP_THREAD_LIMIT=1, as a careful user runs
 * it beside other work) and on its default threads. Last, the worker's resident memory when idle: with its models
 * loaded, and after the pages. The models are loaded by a first, untimed page. No assertions.
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
import { residentMb } from "@/lib/worker/memory-cap";

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
  /** CPU-seconds of the whole process tree, where it differs from the reader's own. */
  treeCpuSeconds?: number;
  /** Peak resident MB of an OCR worker. */
  peakMb?: number;
  chars: number[];
  words: number[];
}
/** This process's running child processes (the OCR workers). */
function children(): number[] {
  const out: number[] = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === process.pid) out.push(Number(pid));
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

/** CPU milliseconds of the OCR workers: those running, and those that ended (replaced) and were waited for. */
async function workersCpuMs(): Promise<number> {
  let sum = waitedChildrenCpuMs();
  for (const pid of children()) sum += (await processCpuMs(pid)) ?? 0;
  return sum;
}

/** CPU milliseconds of the children this process has waited for (fields cutime and cstime of /proc/self/stat). */
function waitedChildrenCpuMs(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/** This process's own CPU milliseconds (its main thread and its parse worker threads). */
function ownProcessCpuMs(): number {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
}

/** Resident MB of the largest OCR worker now. */
const workerMb = () => Math.max(0, ...children().map((pid) => residentMb(pid) ?? 0));

function hasTesseract(lang: string): boolean {
  const r = spawnSync("tesseract", ["--list-langs"], { encoding: "utf8" });
  return r.status === 0 && r.stdout.split("\n").includes(lang);
}

function print(name: string, lang: string, f: Figures) {
  const mean = (xs: number[]) => (xs.reduce((a, b) => a + b, 0) / xs.length) * 100;
  const n = f.chars.length;
  const tree = f.treeCpuSeconds === undefined ? "" : ` (process tree ${(f.treeCpuSeconds / n).toFixed(2)})`;
  const peak = f.peakMb === undefined ? "" : `, worker peak ${f.peakMb.toFixed(0)} MB`;
  console.log(
    `  ${name.padEnd(13)} ${lang}: ${(n / f.seconds).toFixed(3)} pages/s, ${(f.cpuSeconds / n).toFixed(2)} CPU-s a page${tree}, ` +
      `character accuracy ${mean(f.chars).toFixed(2)} %, word accuracy ${mean(f.words).toFixed(2)} %${peak} (${n} pages)`,
  );
}

/** tesseract on the pages, on `threads` OpenMP threads (undefined: its default). */
function runTesseract(pages: { file: string; reference: string }[], lang: string, threads?: number): Figures {
  const f: Figures = { seconds: 0, cpuSeconds: 0, chars: [], words: [] };
  const env = threads === undefined ? process.env : { ...process.env, OMP_THREAD_LIMIT: String(threads) };
  const texts: string[] = [];
  const cpuBefore = waitedChildrenCpuMs();
  const started = performance.now();
  for (const p of pages) texts.push(spawnSync("tesseract", [p.file, "stdout", "-l", lang], { encoding: "utf8", env }).stdout ?? "");
  f.seconds = (performance.now() - started) / 1000;
  f.cpuSeconds = (waitedChildrenCpuMs() - cpuBefore) / 1000;
  for (const [i, p] of pages.entries()) {
    f.chars.push(characterAccuracy(p.reference, texts[i]));
    f.words.push(wordAccuracy(p.reference, texts[i]));
  }
  return f;
}

export async function runOcrBench(opts: { pages: number }): Promise<void> {
  const sources = {
    en: layoutPages(sampleText("employee-handbook.md").concat(sampleText("product-faq.md"))),
    zh: layoutPages(sampleText("员工手册.md")),
  };
  const cfg = ocrConfig();
  console.log(
    `OCR bench: ${opts.pages} scan-like A4 page(s) a language (150/300 dpi, skewed, blurred, grainy JPEG), ` +
      `${cfg.workers} OCR worker(s) × ${cfg.threads} onnxruntime threads (OCR_WORKERS, OCR_THREADS), OCR_MEMORY_MB ${cfg.memoryMb}`,
  );
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocr-bench-"));
  try {
    await parseDocument("warm-up.png", await renderPage(["Warm-up"])); // loads the models in the OCR worker
    const idleFresh = workerMb();
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
      const ours: Figures = { seconds: 0, cpuSeconds: 0, chars: [], words: [], peakMb: 0 };
      // The sampling reads /proc and is the bench's work, not the server's: its CPU time is left out of the tree's.
      let samplingMs = 0;
      const sample = setInterval(() => {
        const before = ownProcessCpuMs();
        ours.peakMb = Math.max(ours.peakMb ?? 0, workerMb());
        samplingMs += ownProcessCpuMs() - before;
      }, 50);
      const texts: string[] = [];
      const cpuBefore = await workersCpuMs();
      const ownBefore = ownProcessCpuMs();
      const started = performance.now();
      for (const [i, p] of pages.entries()) {
        process.stdout.write(`\r  page ${i + 1}/${pages.length}`);
        texts.push((await parseDocument(path.basename(p.file), p.jpeg)).text);
      }
      ours.seconds = (performance.now() - started) / 1000;
      ours.cpuSeconds = ((await workersCpuMs()) - cpuBefore) / 1000;
      ours.treeCpuSeconds = ours.cpuSeconds + (ownProcessCpuMs() - ownBefore - samplingMs) / 1000;
      clearInterval(sample);
      for (const [i, p] of pages.entries()) {
        ours.chars.push(characterAccuracy(p.reference, texts[i]));
        ours.words.push(wordAccuracy(p.reference, texts[i]));
      }
      process.stdout.write("\r");
      print("PP-OCRv4", lang, ours);

      const tessLang = lang === "en" ? "eng" : "chi_sim";
      if (!hasTesseract(tessLang)) {
        console.log(`  tesseract ${lang}: not installed (apt-get install tesseract-ocr tesseract-ocr-chi-sim)`);
        continue;
      }
      print("tesseract 1t", lang, runTesseract(pages, tessLang, 1));
      print("tesseract", lang, runTesseract(pages, tessLang));
    }
    await new Promise((r) => setTimeout(r, 1000));
    const after = workerMb();
    console.log(
      `  OCR worker resident memory, idle: ${idleFresh.toFixed(0)} MB with its models loaded; after the pages ` +
        (after ? `${after.toFixed(0)} MB` : "none held (the worker was replaced after its last page)"),
    );
    console.log("  (word accuracy of Chinese counts runs between spaces, which Chinese text hardly has; read its character accuracy)");
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await closeParsePool();
  }
}
