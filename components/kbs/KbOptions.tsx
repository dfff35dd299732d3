import type { KnowledgeBase } from "@/lib/kb/types";
import { kbLabel } from "./api";

/** One <option> per knowledge base, labelled by kbLabel, for a <select> of knowledge bases. */
export function KbOptions({ kbs }: { kbs: readonly Pick<KnowledgeBase, "name" | "title">[] }) {
  return kbs.map((k) => (
    <option key={k.name} value={k.name}>
      {kbLabel(k)}
    </option>
  ));
}
