import type { Store } from "@/lib/store";
import { kbCatalog } from "./index";
import type { Registry } from "./registry";

/** The names of the knowledge bases that exist now. */
export async function knownKbs(store: Store, registry: Registry): Promise<string[]> {
  return (await kbCatalog(store, registry)).map((e) => e.kb.name);
}
