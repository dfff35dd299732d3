/** Test-only: a real store and registry in a temp dir, with knowledge bases and their documents. */
import { createKnowledgeBase } from "@/lib/kb";
import { openRegistry } from "@/lib/kb/registry";
import type { Store } from "@/lib/store";
import { openTempStore } from "@/lib/store/temp-store";
import { ingestDocument } from "./index";

interface TestKb {
  name: string;
  title: string;
  description: string;
  /** Markdown documents ingested into it, by file name; each is titled by its first heading. */
  documents: Record<string, string>;
}

/** A travel policy: a per diem of 80 euros. */
export const TRAVEL_POLICY = "# Travel policy\n\n## Per diem\n\nThe per diem for overnight travel is 80 euros per day.\n";

/** The "hr" knowledge base with its travel policy (a per diem of 80 euros). */
export const HR_KB: TestKb = {
  name: "hr",
  title: "Human Resources",
  description: "Leave, travel and pay policies",
  documents: { "travel.md": TRAVEL_POLICY },
};

/** A temp store (openTempStore) with a registry, the knowledge bases `kbs` and their documents. */
export async function openTestKbs(prefix: string, kbs: TestKb[]) {
  const temp = await openTempStore(prefix);
  const { store } = temp;
  const registry = await openRegistry(store, { defaultKb: "default" });
  for (const { documents, ...kb } of kbs) await createKnowledgeBase(store, registry, kb);
  for (const kb of kbs) await ingestMarkdown(store, kb.name, kb.documents);
  return { ...temp, registry };
}

/** Ingests Markdown documents, by file name, into the knowledge base `kb`. */
export async function ingestMarkdown(store: Store, kb: string, documents: Record<string, string>) {
  const enc = new TextEncoder();
  for (const [filename, text] of Object.entries(documents)) await ingestDocument(store, { filename, kb, data: enc.encode(text) });
}
