import { describe, expect, it } from "vitest";
// @ts-expect-error -- a plain ES module script without types
import { folderBackImports, readLayers, serverFindings, upwardImports } from "./layers.mjs";

describe("lib/ layer order", () => {
  it("lists every lib/ folder once, and no module imports a folder above its own", () => {
    const layers: string[] = readLayers();
    expect(new Set(layers).size).toBe(layers.length);
    expect(upwardImports(layers)).toEqual({ found: [], unlisted: [] });
  });

  it("reports an import that points up and a folder the order leaves out", () => {
    const layers: string[] = readLayers();
    const swapped = layers.filter((l) => l !== "store" && l !== "kb");
    swapped.splice(0, 0, "kb");
    const { found, unlisted } = upwardImports([...swapped, "store"].filter((l) => l !== "http"));
    expect(found).toContain("lib/kb/registry.ts: @/lib/store (kb → store)");
    expect(unlisted).toEqual(["http"]);
  });

  it("holds tests and their helpers to the order too", () => {
    const layers: string[] = readLayers().filter((l: string) => l !== "test-helpers");
    const { found } = upwardImports([...layers, "test-helpers"]);
    expect(found).toContain("lib/server/startup.test.ts: @/lib/test-helpers/log (server → test-helpers)");
    const ingestBelowStore: string[] = readLayers().filter((l: string) => l !== "ingest");
    ingestBelowStore.splice(ingestBelowStore.indexOf("store"), 0, "ingest");
    expect(upwardImports(ingestBelowStore).found).toContain("lib/ingest/store-close.test.ts: @/lib/store/index (ingest → store)");
  });

  it("finds no import from e2e/ into scripts/, and would name one", () => {
    expect(folderBackImports()).toEqual([]);
    expect(folderBackImports({ scripts: "e2e" })).toContain("scripts/bench-replicas.ts: ../e2e/helpers/s3 (scripts → e2e)");
  });

  it("finds every e2e spec reaching its servers through e2e/helpers/servers.ts, and names one that does not", () => {
    expect(serverFindings()).toEqual([]);
    const oldStyle = [
      'import { expect, type Page, test } from "@playwright/test";',
      'import { PORTS } from "../playwright.config";',
      "const PORT = Number(process.env.E2E_PORT_BASE || 3100) + 10;",
    ].join("\n");
    const found: string[] = serverFindings({ "e2e/old.spec.ts": oldStyle });
    expect(found).toHaveLength(3);
    expect(found.every((f) => f.startsWith("e2e/old.spec.ts: "))).toBe(true);
    expect(
      serverFindings({ "e2e/new.spec.ts": 'import type { Page } from "@playwright/test";\nimport { test } from "./helpers/servers";' }),
    ).toEqual([]);
  });

  it("reads the order from the fenced layers block", () => {
    expect(readLayers("text\n```layers\na b\nc\n```\n")).toEqual(["a", "b", "c"]);
    expect(() => readLayers("no block")).toThrow(/layers/);
  });
});
