/**
 * The MCP Apps citation view as a client sees it (SDK client over an in-memory transport, real LanceDB store
 * in a temp dir): the ui:// resource is listed and readable as one self-contained HTML document with a strict
 * CSP, and both kinds of search tool point at it. The view in a browser, with a host, is e2e/citation-view.spec.ts.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingestMarkdown, TRAVEL_POLICY } from "@/lib/ingest/test-kbs";
import type { KnowledgeBase } from "@/lib/kb/types";
import type { Store } from "@/lib/store";
import { openTempStore, type TempStore } from "@/lib/store/temp-store";
import { connectInMemory } from "./test-client";

const URI = "ui://knowledge-base/citations.html";
let temp: TempStore;
let store: Store;

const hr: KnowledgeBase = {
  name: "hr",
  title: "Human Resources",
  description: "Leave and travel",
  createdAt: "",
  updatedAt: "",
  documentCount: 1,
  isDefault: false,
  toolName: "search_hr",
};

beforeAll(async () => {
  temp = await openTempStore("mcp-citation-view-");
  store = temp.store;
  await ingestMarkdown(store, "hr", { "travel.md": TRAVEL_POLICY });
});

afterAll(async () => {
  await temp?.close();
});

const connect = () => connectInMemory(store, { catalog: [{ kb: hr, titles: ["Travel policy"] }] });

describe("MCP Apps citation view", () => {
  it("is listed as a ui:// resource with the MCP Apps mime type", async () => {
    const client = await connect();
    const { resources } = await client.listResources();
    const view = resources.find((r) => r.uri === URI);
    expect(view).toMatchObject({ name: "citation_view", mimeType: "text/html;profile=mcp-app" });
    await client.close();
  });

  it("reads as one self-contained HTML document under a strict CSP", async () => {
    const client = await connect();
    const { contents } = await client.readResource({ uri: URI });
    expect(contents).toHaveLength(1);
    const [content] = contents as { uri: string; mimeType: string; text: string; _meta?: unknown }[];
    expect(content).toMatchObject({ uri: URI, mimeType: "text/html;profile=mcp-app" });
    const html = content.text;
    expect(html).toMatch(/^<!doctype html>/);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'none'");
    // The one inline script is allowed by its hash, nothing else runs.
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
    expect(scripts).toHaveLength(1);
    expect(scripts[0].length).toBeGreaterThan(1000);
    expect(csp).toContain(`script-src 'sha256-${createHash("sha256").update(scripts[0]).digest("base64")}'`);
    expect(csp).not.toMatch(/unsafe-eval|https?:/);
    // No external loads: no src/href attributes pointing anywhere.
    expect(html).not.toMatch(/\s(?:src|href)=/);
    await client.close();
  });

  it("is the view of search_knowledge and of every search_<kb> tool", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    for (const name of ["search_knowledge", "search_hr"]) {
      const tool = tools.find((t) => t.name === name);
      expect(tool?._meta?.ui).toEqual({ resourceUri: URI });
      expect(tool?._meta?.["ui/resourceUri"]).toBe(URI);
    }
    expect(tools.find((t) => t.name === "search_hr")?._meta?.["knowledge-base/kb"]).toBe("hr");
    expect(tools.find((t) => t.name === "read_document")?._meta?.ui).toBeUndefined();
    // The text content hosts without the extension show is unchanged.
    const result = await client.callTool({ name: "search_hr", arguments: { query: "per diem overnight" } });
    expect((result.content as { type: string; text: string }[])[0].text).toContain("80 euros per day");
    await client.close();
  });
});
