/**
 * A small web site on a loopback port for the web source tests: a sitemap, robots.txt that disallows
 * /docs/private/, a redirect, a PDF, a 404, ETag revalidation, pages a test can change or remove, and a count
 * of every request by path.
 */
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { PDFDocument, StandardFonts } from "pdf-lib";

export interface TestSite {
  base: string;
  /** Page bodies by path; a test changes or deletes them between syncs. */
  pages: Map<string, { type: string; body: string | Uint8Array }>;
  /** Requests by path, and how many of them were answered 304. */
  hits: Map<string, number>;
  notModified: number;
  close(): Promise<void>;
}

const html = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><nav><a href="/docs/">Home</a></nav><main><article><h1>${title}</h1>${body}</article></main></body></html>`;

async function makePdf(text: string): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  pdf.addPage().drawText(text, { x: 50, y: 700, size: 12, font });
  return pdf.save();
}

export async function serveTestSite(port = 0): Promise<TestSite> {
  const pages = new Map<string, { type: string; body: string | Uint8Array }>();
  const hits = new Map<string, number>();
  const site: TestSite = { base: "", pages, hits, notModified: 0, close: async () => {} };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    if (url.pathname === "/docs/old.html") {
      res.writeHead(301, { location: "/docs/moved.html" });
      return void res.end();
    }
    const page = pages.get(url.pathname);
    if (!page) {
      res.writeHead(404, { "content-type": "text/plain" });
      return void res.end("not found");
    }
    const etag = `"${createHash("sha256").update(page.body).digest("hex").slice(0, 16)}"`;
    if (req.headers["if-none-match"] === etag) {
      site.notModified++;
      res.writeHead(304, { etag });
      return void res.end();
    }
    res.writeHead(200, { "content-type": page.type, etag });
    res.end(page.body);
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  site.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  site.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  const h = "text/html; charset=utf-8";
  pages.set("/robots.txt", { type: "text/plain", body: "User-agent: *\nDisallow: /docs/private/\n" });
  pages.set("/docs/", {
    type: h,
    body: html(
      "Handbook",
      `<p>The handbook of the okapi project lists every guide we keep.</p>
         <ul><li><a href="/docs/alpha.html">Alpha</a></li><li><a href="beta.html#top">Beta</a></li>
         <li><a href="/docs/old.html">Old</a></li><li><a href="/docs/private/secret.html">Secret</a></li>
         <li><a href="/docs/missing.html">Missing</a></li><li><a href="/files/manual.pdf">Manual (PDF)</a></li>
         <li><a href="${"http://localhost"}:${(server.address() as AddressInfo).port}/docs/alpha.html">Elsewhere</a></li>
         <li><a href="/blog/outside.html">Outside the prefix</a></li></ul>`,
    ),
  });
  pages.set("/docs/alpha.html", {
    type: h,
    body: html("Alpha guide", "<p>Alpha explains how the zebra migration is planned each spring.</p>"),
  });
  pages.set("/docs/beta.html", {
    type: h,
    body: html("Beta guide", "<p>Beta covers the giraffe feeding schedule in the first edition.</p>"),
  });
  pages.set("/docs/moved.html", { type: h, body: html("Moved guide", "<p>The moved page describes the hippo pool cleaning rota.</p>") });
  pages.set("/docs/private/secret.html", { type: h, body: html("Secret", "<p>Never crawl this.</p>") });
  pages.set("/blog/outside.html", { type: h, body: html("Outside", "<p>Outside the prefix.</p>") });
  pages.set("/files/manual.pdf", {
    type: "application/pdf",
    body: await makePdf("The manual explains the rhinoceros enclosure gate codes."),
  });
  pages.set("/docs/sitemap.xml", {
    type: "application/xml",
    body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${site.base}/docs/alpha.html</loc></url><url><loc>${site.base}/docs/beta.html</loc></url><url><loc>${site.base}/docs/private/secret.html</loc></url></urlset>`,
  });
  return site;
}
