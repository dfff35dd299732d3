/**
 * OCR throughput: `npm run bench -- --ocr [--pages 4]`. Renders pages of the sample documents in knowledge/
 * (English and Chinese, alternately) into a scanned, image-only PDF (e2e/fixtures/make-scans.ts), reads it through
 * the parse and OCR worker pools as an upload would, and prints pages/s and the character accuracy per language.
 * The models are loaded by a first, untimed page. Prints numbers only; no assertions.
 */
import { characterAccuracy, layoutPages, makeScannedPdf, renderPage, sampleText } from "@/e2e/fixtures/make-scans";
import { ocrConfig } from "@/lib/config";
import { parseDocument } from "@/lib/parse";
import { closeParsePool } from "@/lib/parse/pool";

export async function runOcrBench(opts: { pages: number }): Promise<void> {
  const en = layoutPages(sampleText("employee-handbook.md").concat(sampleText("product-faq.md")));
  const zh = layoutPages(sampleText("员工手册.md"));
  const pages = Array.from({ length: opts.pages }, (_, i) =>
    i % 2 === 0 ? { lang: "en", lines: en[(i / 2) % en.length] } : { lang: "zh", lines: zh[((i - 1) / 2) % zh.length] },
  );
  const pdf = await makeScannedPdf(await Promise.all(pages.map((p) => renderPage(p.lines))));
  const cfg = ocrConfig();
  console.log(`OCR bench: ${pages.length} scanned A4 pages at 150 dpi, ${cfg.threads} onnxruntime threads (OCR_THREADS)`);

  await parseDocument("warm-up.png", await renderPage(["Warm-up"])); // loads the models in the OCR worker
  const started = performance.now();
  const doc = await parseDocument("bench-scan.pdf", pdf, {
    onOcrPage: ({ page, total }) => process.stdout.write(`\r  page ${page}/${total}`),
  });
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write("\n");
  const texts = (doc.pages ?? []).map((p, i, all) => doc.text.slice(p.start, all[i + 1]?.start ?? doc.text.length));
  const byLang = new Map<string, number[]>();
  (doc.pages ?? []).forEach((p, i) => {
    const page = pages[p.page - 1];
    byLang.set(page.lang, [...(byLang.get(page.lang) ?? []), characterAccuracy(page.lines.join("\n"), texts[i])]);
  });
  console.log(
    `  ${(pages.length / seconds).toFixed(3)} pages/s (${(seconds / pages.length).toFixed(2)} s a page, ${seconds.toFixed(1)} s in all)`,
  );
  for (const [lang, acc] of byLang) {
    console.log(
      `  character accuracy, ${lang}: ${((acc.reduce((a, b) => a + b, 0) / acc.length) * 100).toFixed(2)} % over ${acc.length} page(s)`,
    );
  }
  await closeParsePool();
}
