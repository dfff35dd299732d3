/**
 * Sources and what each one has brought in: two side tables of the document store (so every replica sees
 * them). `sources`: one row per source, its secrets sealed (./secrets.ts). `source_items`: one row per item
 * seen (a page, a file, an object) with what change detection needs (ETag, blob id…) and its document.
 */
import { randomBytes } from "node:crypto";
import { Field, Int32, Schema } from "apache-arrow";
import { openSideTables, perStore, type Store, serialQueue, versionCached } from "@/lib/store";
import { textField } from "@/lib/store/schema";
import { sqlEq, sqlIn } from "@/lib/store/sql";
import { upsertRows } from "@/lib/store/tables";
import { keyedRows } from "@/lib/store/versioned";
import type { SourceConfig, SourceKind, SyncRun } from "./schema";

const sourcesSchema = new Schema([
  textField("id"),
  textField("kb"),
  textField("kind"),
  textField("name"),
  textField("config"),
  textField("secret"),
  new Field("schedule_minutes", new Int32(), false),
  textField("created_at"),
  textField("last_run", true),
  textField("next_run_at", true),
]);
const itemsSchema = new Schema([
  textField("id"),
  textField("source_id"),
  textField("key"),
  textField("url"),
  textField("document_id", true),
  textField("version", true),
  textField("content_hash", true),
  textField("links", true),
  textField("updated_at"),
]);

export interface SourceRecord {
  id: string;
  kb: string;
  kind: SourceKind;
  name: string;
  config: SourceConfig;
  /** Sealed secrets ("" when none). */
  secret: string;
  scheduleMinutes: number;
  createdAt: string;
  lastRun: SyncRun | null;
  nextRunAt: string | null;
}

/** One thing a source holds, as last seen. */
export interface SourceItem {
  key: string;
  /** Where it lives outside the app (a page, a file at a commit, an object). */
  url: string;
  /** Its document, when one was made (null: skipped, or its content is another document's). */
  documentId: string | null;
  /** What says it changed: an ETag or Last-Modified, a blob id, an object's ETag, size and mtime. */
  version: string | null;
  contentHash: string | null;
  /** Pages: the links it held, so an unchanged (304) page still leads the crawl on. */
  links: string[] | null;
}

function rowToSource(r: Record<string, unknown>): SourceRecord {
  return {
    id: String(r.id),
    kb: String(r.kb),
    kind: String(r.kind) as SourceKind,
    name: String(r.name),
    config: JSON.parse(String(r.config)),
    secret: String(r.secret ?? ""),
    scheduleMinutes: Number(r.schedule_minutes),
    createdAt: String(r.created_at),
    lastRun: r.last_run ? JSON.parse(String(r.last_run)) : null,
    nextRunAt: r.next_run_at == null ? null : String(r.next_run_at),
  };
}
function sourceToRow(s: SourceRecord) {
  return {
    id: s.id,
    kb: s.kb,
    kind: s.kind,
    name: s.name,
    config: JSON.stringify(s.config),
    secret: s.secret,
    schedule_minutes: s.scheduleMinutes,
    created_at: s.createdAt,
    last_run: s.lastRun ? JSON.stringify(s.lastRun) : null,
    next_run_at: s.nextRunAt,
  };
}
// A source id is base64url (no ":"), so the pair reads back unambiguously.
const itemId = (sourceId: string, key: string) => `${sourceId}:${key}`;
function rowToItem(r: Record<string, unknown>): SourceItem {
  return {
    key: String(r.key),
    url: String(r.url),
    documentId: r.document_id == null ? null : String(r.document_id),
    version: r.version == null ? null : String(r.version),
    contentHash: r.content_hash == null ? null : String(r.content_hash),
    links: r.links ? JSON.parse(String(r.links)) : null,
  };
}

export interface SourceStore {
  list(kb?: string): Promise<SourceRecord[]>;
  get(id: string): Promise<SourceRecord | null>;
  put(source: SourceRecord): Promise<void>;
  remove(id: string): Promise<void>;
  items(sourceId: string): Promise<Map<string, SourceItem>>;
  /** Writes these items and forgets `gone` (keys), in one commit each. */
  saveItems(sourceId: string, items: readonly SourceItem[], gone: readonly string[]): Promise<void>;
  /** The source link of each of these documents that came from a source. */
  linksOf(documentIds: readonly string[]): Promise<Map<string, { sourceId: string; url: string }>>;
  /** Documents per source. */
  documentCounts(): Promise<Map<string, number>>;
  /** Every document some source's item owns. */
  ownedDocuments(): Promise<Set<string>>;
}

export function newSourceId(): string {
  return randomBytes(9).toString("base64url");
}

const TABLES = { sources: { name: "sources", schema: sourcesSchema }, items: { name: "source_items", schema: itemsSchema } };

export const getSourceStore = perStore("sourceStore", async (store: Store): Promise<SourceStore> => {
  const { sources, items } = await openSideTables(store, TABLES);
  const serialized = serialQueue();
  const sourceRows = keyedRows(sources, serialized, { key: "id", keyOf: (s) => s.id, fromRow: rowToSource, toRow: sourceToRow });
  const counts = versionCached(items, async () => {
    const out = new Map<string, number>();
    for (const r of await items.table.query().select(["source_id", "document_id"]).where("document_id IS NOT NULL").toArray()) {
      out.set(String(r.source_id), (out.get(String(r.source_id)) ?? 0) + 1);
    }
    return out;
  });
  return {
    async list(kb) {
      const list = (await sourceRows.all()).filter((s) => kb === undefined || s.kb === kb);
      return list.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    },
    get: sourceRows.get,
    put: sourceRows.put,
    remove(id) {
      return serialized(async () => {
        await items.write((t) => t.delete(sqlEq("source_id", id)));
        await sources.write((t) => t.delete(sqlEq("id", id)));
      });
    },
    async items(sourceId) {
      const rows = await items.table.query().where(sqlEq("source_id", sourceId)).toArray();
      return new Map(rows.map((r) => [String(r.key), rowToItem(r)]));
    },
    saveItems(sourceId, list, gone) {
      return serialized(async () => {
        if (gone.length)
          await items.write((t) =>
            t.delete(
              sqlIn(
                "id",
                gone.map((k) => itemId(sourceId, k)),
              ),
            ),
          );
        if (list.length === 0) return;
        const now = new Date().toISOString();
        const rows = list.map((i) => ({
          id: itemId(sourceId, i.key),
          source_id: sourceId,
          key: i.key,
          url: i.url,
          document_id: i.documentId,
          version: i.version,
          content_hash: i.contentHash,
          links: i.links ? JSON.stringify(i.links) : null,
          updated_at: now,
        }));
        await upsertRows(items, "id", rows);
      });
    },
    async linksOf(documentIds) {
      const out = new Map<string, { sourceId: string; url: string }>();
      if (documentIds.length === 0 || (await items.table.countRows()) === 0) return out;
      const rows = await items.table.query().select(["source_id", "url", "document_id"]).where(sqlIn("document_id", documentIds)).toArray();
      for (const r of rows) out.set(String(r.document_id), { sourceId: String(r.source_id), url: String(r.url) });
      return out;
    },
    documentCounts: counts,
    async ownedDocuments() {
      const rows = await items.table.query().select(["document_id"]).where("document_id IS NOT NULL").toArray();
      return new Set(rows.map((r) => String(r.document_id)));
    },
  };
});
