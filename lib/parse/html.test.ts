import { describe, expect, it } from "vitest";
import { HTML_PHRASES, makeHtml } from "@/e2e/fixtures/make-fixtures";
import { parseDocument } from "./index";

describe("HTML parser", () => {
  it("keeps the article and drops navigation, footer and scripts", async () => {
    const doc = await parseDocument("heron.html", makeHtml());
    expect(doc.mimeType).toBe("text/html");
    expect(doc.title).toBe(HTML_PHRASES.title);
    expect(doc.text).toMatch(new RegExp(`^# ${HTML_PHRASES.title}`));
    expect(doc.text).toContain(HTML_PHRASES.article);
    expect(doc.text).toMatch(/^## Feeding grounds$/m);
    expect(doc.text).not.toContain(HTML_PHRASES.nav);
    expect(doc.text).not.toContain(HTML_PHRASES.script);
    expect(doc.text).not.toMatch(/<\/?[a-z]+[\s>]/i);
  });

  it("falls back to the page body for short pages, still without chrome", async () => {
    const html = `<html><head><title>Tiny</title></head><body><nav>Menu Zyxwv</nav><p>Only a short line of text.</p><script>evil()</script></body></html>`;
    const doc = await parseDocument("tiny.htm", Buffer.from(html));
    expect(doc.text).toContain("Only a short line of text.");
    expect(doc.text).not.toContain("Zyxwv");
    expect(doc.text).not.toContain("evil");
  });

  it("sniffs HTML in a file without extension", async () => {
    const doc = await parseDocument("page", makeHtml());
    expect(doc.mimeType).toBe("text/html");
  });

  it("decodes the charset the page declares", async () => {
    const iconv = (await import("iconv-lite")).default;
    const page = (charset: string, body: string) =>
      `<html><head><meta charset="${charset}"><title>T</title></head><body><article><p>${body}</p></article></body></html>`;
    const gbk = await parseDocument("gbk.html", iconv.encode(page("gbk", "员工差旅报销制度说明"), "gbk"));
    expect(gbk.text).toContain("员工差旅报销制度说明");
    const latin = await parseDocument("latin.html", iconv.encode(page("windows-1252", "Un café crème à Noël"), "win1252"));
    expect(latin.text).toContain("Un café crème à Noël");
  });
});
