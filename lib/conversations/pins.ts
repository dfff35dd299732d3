/**
 * Pinned conversations: a side table of conversation ids (a conversation has one owner, so a pin is theirs).
 * Kept apart from the `conversations` table so a pin never rewrites a conversation's messages.
 */
import { Field, Schema, Utf8 } from "apache-arrow";
import { getStore, perStore, type Store } from "@/lib/store";
import { sqlEq } from "@/lib/store/sql";
import type { ConversationSummary } from "./schema";

const PINS_TABLE = "conversation_pins";
const pinsSchema = new Schema([new Field("id", new Utf8(), false), new Field("pinned_at", new Utf8(), false)]);

export interface PinStore {
  /** When each pinned conversation was pinned, by id. */
  all(): Promise<Map<string, string>>;
  set(id: string, pinned: boolean): Promise<void>;
}

async function openPins(store: Store): Promise<PinStore> {
  const side = await store.sideTable(PINS_TABLE, pinsSchema);
  return {
    async all() {
      const rows = await side.table.query().toArray();
      return new Map(rows.map((r) => [String(r.id), String(r.pinned_at)]));
    },
    async set(id, pinned) {
      if (!pinned) {
        await side.write((t) => t.delete(sqlEq("id", id)));
        return;
      }
      const row = { id, pinned_at: new Date().toISOString() };
      await side.write((t) => t.mergeInsert("id").whenNotMatchedInsertAll().execute([row]));
    },
  };
}

const pinsOf = perStore("conversation-pins", openPins);

export async function getPins(store?: Store): Promise<PinStore> {
  return pinsOf(store ?? (await getStore()));
}

/** The list as shown: pinned conversations first (most recently pinned first), then the rest in their order. */
export function withPins(list: readonly ConversationSummary[], pins: ReadonlyMap<string, string>): ConversationSummary[] {
  const marked = list.map((c) => ({ ...c, pinned: pins.has(c.id) }));
  const pinned = marked.filter((c) => c.pinned).sort((a, b) => pins.get(b.id)!.localeCompare(pins.get(a.id)!));
  return [...pinned, ...marked.filter((c) => !c.pinned)];
}
