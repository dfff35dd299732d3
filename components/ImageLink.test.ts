import { createElement as h } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { DocumentRecord } from "@/lib/types";
import { DocumentBody } from "./documents/DocumentBody";
import { T } from "./documents/messages";
import { webHost } from "./ImageLink";

const TEXT = [
  "# Pixels",
  "",
  "A tracker ![pixel](http://127.0.0.1:9/p.png) and ![](https://cdn.example.com:8443/a.gif?u=1) inline.",
  "",
  '<img src="http://127.0.0.1:9/raw.png">',
  "",
  "![dot](data:image/png;base64,iVBORw0KGgo=) and ![rel](images/x.png) and ![svg](data:image/svg+xml,<svg/>)",
].join("\n");

function render(text: string): string {
  const doc = { id: "d", title: "Pixels", mimeType: "text/markdown" } as DocumentRecord;
  const body = h(DocumentBody, {
    document: doc,
    text,
    pages: null,
    chunks: [],
    cited: null,
    passage: null,
    showChunks: false,
    t: T.en,
  });
  return renderToStaticMarkup(body);
}

describe("images in a document's Markdown", () => {
  it("are never fetched from elsewhere: a link showing the host instead", () => {
    const html = render(TEXT);
    expect(html).not.toMatch(/<img/);
    expect(html).not.toMatch(/rel="preload"/);
    expect(html).toContain('href="http://127.0.0.1:9/p.png"');
    expect(html).toContain("🖼 pixel (127.0.0.1:9)");
    expect(html).toContain("🖼 image (cdn.example.com:8443)");
    // Raw HTML stays text; data: and relative addresses are named, not drawn.
    expect(html).toContain("&lt;img src=&quot;http://127.0.0.1:9/raw.png&quot;&gt;");
    expect(html).toContain("🖼 dot");
    expect(html).toContain("🖼 rel");
    expect(html).toContain("🖼 svg");
  });
  it("names the host of web addresses only", () => {
    expect(webHost("https://a.example/x.png")).toBe("a.example");
    expect(webHost("javascript:alert(1)")).toBe("");
    expect(webHost("/x.png")).toBe("");
  });
});
