/**
 * The `faqs` table, a side table of the document store, with its own vector and full-text index over each
 * entry's question and phrasings.
 */
import { randomBytes } from "node:crypto";
import type { Table } from "@lancedb/lancedb";
import { type Embedder, isOfflineEmbedder } from "@/lib/embed";
import { perStore, type Store, serialQueue, whitespaceFtsIndex } from "@/lib/store";
import { FTS_COLUMN, vectorDimension } from "@/lib/store/schema";
import { sqlEq, sqlIn } from "@/lib/store/sql";
import { upsertRows } from "@/lib/store/tables";
import { toIndexText } from "@/lib/tokenize/index-text";
import { AppError } from "@/lib/types";
import { buildLexicalIndex, faqTexts, type LexicalIndex, lexicalHits } from "./lexical-index";
import { cosine, lexicalMatch, matchScore, STRONG_LEXICAL } from "./match";
import { FAQ_COLUMNS, FAQ_GENERATIONS_TABLE, FAQ_TABLE, faqsSchema, faqToRow, generationsSchema, rowToFaq } from "./schema";
import type { FaqHit, FaqOrigin, FaqPatch, FaqRecord, FaqSource, FaqStatus } from "./types";

export interface NewFaq {
  kb: string;
  question: string;
  answer: string;
  phrasings?: string[];
  tags?: string[];
  source: FaqSource;
  origin: FaqOrigin;
  status?: FaqStatus;
  /** Stable id (extracted and generated entries), else a random one. */
  id?: string;
}

interface FaqListOptions {
  kb?: string | readonly string[];
  status?: FaqStatus;
  origin?: FaqOrigin;
  documentId?: string;
}

export interface FaqStore {
  list(opts?: FaqListOptions): Promise<FaqRecord[]>;
  get(id: string): Promise<FaqRecord | null>;
  add(entries: NewFaq[]): Promise<FaqRecord[]>;
  update(id: string, patch: FaqPatch): Promise<FaqRecord | null>;
  delete(id: string): Promise<boolean>;
  /** Replaces the entries of this origin that came from a document (re-ingest). */
  replaceForDocument(documentId: string, origin: FaqOrigin, entries: NewFaq[]): Promise<FaqRecord[]>;
  /** replaceForDocument for many documents in one read and one write (a batch ingest). */
  replaceForDocuments(origin: FaqOrigin, docs: readonly { documentId: string; entries: NewFaq[] }[]): Promise<Map<string, FaqRecord[]>>;
  /** Accepted entries matching a query, best first; entries whose source document is gone are left out. */
  search(query: string, opts: { kbs?: readonly string[]; limit: number }): Promise<FaqHit[]>;
  /** A knowledge base was renamed: its entries move with it. */
  moveKb(from: string, to: string): Promise<void>;
  /** A knowledge base was deleted: so are its entries. */
  deleteKb(name: string): Promise<void>;
  /** Cache of model-generated pairs by key (content hash of a section and the model). */
  cachedGeneration(key: string): Promise<string | null>;
  cacheGeneration(key: string, pairs: string): Promise<void>;
}

const clean = (list: readonly string[] | undefined) => [...new Set((list ?? []).map((s) => s.trim()).filter(Boolean))];

function newFaqId(): string {
  return randomBytes(12).toString("hex");
}

/** The rows of `faqs`, each with its index text and the vector of its question and phrasings. */
async function faqRows(embedder: Embedder, faqs: FaqRecord[]) {
  const vectors = faqs.length ? await embedder.embed(faqs.map((f) => faqTexts(f).join("\n"))) : [];
  return faqs.map((f, i) => faqToRow(f, { indexText: toIndexText(faqTexts(f).join("\n")), embedder: embedder.name, vector: vectors[i] }));
}

function faqFilter(o: FaqListOptions = {}): string | undefined {
  const parts: string[] = [];
  if (typeof o.kb === "string") parts.push(sqlEq("kb", o.kb));
  else if (o.kb) parts.push(sqlIn("kb", o.kb));
  if (o.status) parts.push(sqlEq("status", o.status));
  if (o.origin) parts.push(sqlEq("origin", o.origin));
  if (o.documentId) parts.push(sqlEq("source_document_id", o.documentId));
  return parts.length ? parts.join(" AND ") : undefined;
}

async function selectFaqs(table: Table, filter: string | undefined): Promise<FaqRecord[]> {
  let q = table.query().select(FAQ_COLUMNS);
  if (filter) q = q.where(filter);
  return (await q.toArray()).map(rowToFaq);
}

/** A new entry as stored: trimmed, phrasings and tags without duplicates, accepted unless said otherwise. */
function buildFaq(e: NewFaq, now: string): FaqRecord {
  const question = e.question.trim();
  if (!question || !e.answer.trim()) throw new AppError("bad_request", "A FAQ needs a question and an answer.");
  return {
    id: e.id ?? newFaqId(),
    kb: e.kb,
    question,
    phrasings: clean(e.phrasings).filter((p) => p !== question),
    answer: e.answer.trim(),
    tags: clean(e.tags),
    source: e.source,
    origin: e.origin,
    status: e.status ?? "accepted",
    createdAt: now,
    updatedAt: now,
  };
}

function patched(current: FaqRecord, patch: FaqPatch): FaqRecord {
  const next: FaqRecord = {
    ...current,
    ...(patch.question !== undefined ? { question: patch.question.trim() } : {}),
    ...(patch.answer !== undefined ? { answer: patch.answer.trim() } : {}),
    ...(patch.phrasings !== undefined ? { phrasings: clean(patch.phrasings) } : {}),
    ...(patch.tags !== undefined ? { tags: clean(patch.tags) } : {}),
    ...(patch.status !== undefined ? { status: patch.status } : {}),
    updatedAt: new Date().toISOString(),
  };
  next.phrasings = next.phrasings.filter((p) => p !== next.question);
  return next;
}

/** Entries whose source document was deleted are gone with it (left in the table, never shown). */
async function live(store: Store, list: FaqRecord[]): Promise<FaqRecord[]> {
  const ids = list.map((f) => f.source.documentId).filter((d): d is string => !!d);
  if (ids.length === 0) return list;
  const docs = await store.getDocuments(ids);
  return list.filter((f) => !f.source.documentId || docs.has(f.source.documentId));
}

/** Candidates by full-text and vector search, scored by lexical and semantic match (a real embedding model). */
async function hybridSearch(
  table: Table,
  embedder: Embedder,
  hasFtsIndex: () => Promise<boolean>,
  q: string,
  kbs: readonly string[] | undefined,
  limit: number,
): Promise<FaqHit[]> {
  const filter = faqFilter({ kb: kbs, status: "accepted" });
  const [queryVector] = await embedder.embed([q]);
  let vq = table
    .vectorSearch(queryVector)
    .distanceType("cosine")
    .select([...FAQ_COLUMNS, "vector", "_distance"])
    .limit(limit);
  if (filter) vq = vq.where(filter);
  const tokens = toIndexText(q);
  const hasFts = tokens && (await hasFtsIndex());
  let tq = hasFts
    ? table
        .query()
        .fullTextSearch(tokens, { columns: FTS_COLUMN })
        .select([...FAQ_COLUMNS, "vector", "_score"])
        .limit(limit)
    : null;
  if (tq && filter) tq = tq.where(filter);
  const [byVector, byText] = await Promise.all([vq.toArray(), tq ? tq.toArray() : []]);
  const byId = new Map<string, FaqHit>();
  for (const r of [...byVector, ...byText]) {
    const faq = rowToFaq(r);
    if (byId.has(faq.id)) continue;
    const score = matchScore(lexicalMatch(q, faqTexts(faq)), cosine(queryVector, r.vector as ArrayLike<number>), false);
    byId.set(faq.id, { faq, score, strong: score >= STRONG_LEXICAL });
  }
  return [...byId.values()].filter((h) => h.score > 0);
}

async function openFaqStore(store: Store): Promise<FaqStore> {
  const { embedder } = store;
  const faqTable = await store.sideTable(FAQ_TABLE, faqsSchema(embedder.dimension));
  const generations = await store.sideTable(FAQ_GENERATIONS_TABLE, generationsSchema);
  const table = () => faqTable.table;
  const select = (filter: string | undefined) => selectFaqs(table(), filter);

  const serialized = serialQueue();

  // Every search asks both: answered from the table's version instead of a count and an index listing each time.
  let counted = { version: -1, rows: 0 };
  const rowCount = async () => {
    const version = await faqTable.version();
    if (counted.version !== version) counted = { version, rows: await table().countRows() };
    return counted.rows;
  };
  let ftsSeen = false;
  const ftsExists = async () => {
    ftsSeen ||= (await table().listIndices()).some((i) => i.columns.includes(FTS_COLUMN));
    return ftsSeen;
  };
  const ensureFts = async () => {
    if (await ftsExists()) return;
    if ((await rowCount()) === 0) return;
    await faqTable.write((t) => t.createIndex(FTS_COLUMN, { config: whitespaceFtsIndex(), replace: true }));
    ftsSeen = true;
  };

  // Vectors from another embedder (after a reindex) are re-made: FAQs are few, so this is cheap.
  if (
    vectorDimension(await table().schema()) !== embedder.dimension ||
    (await table().countRows(`embedder != '${embedder.name.replaceAll("'", "''")}'`)) > 0
  ) {
    const rows = await faqRows(embedder, await select(undefined));
    await faqTable.recreate(faqsSchema(embedder.dimension));
    if (rows.length) await faqTable.write((t) => t.add(rows));
  }
  await ensureFts();

  const upsert = async (faqs: FaqRecord[]) => {
    if (faqs.length === 0) return;
    const rows = await faqRows(embedder, faqs);
    await upsertRows(faqTable, "id", rows);
    await ensureFts();
  };

  // Offline the match is lexical only (match.ts), so the accepted entries' question tokens are kept in memory
  // per table version (see docs/design-decisions.md). FAQs are few, so this is small.
  let tokenIndex: (LexicalIndex & { version: number }) | null = null;
  const lexicalIndex = async (): Promise<LexicalIndex> => {
    const version = await faqTable.version();
    if (tokenIndex?.version === version) return tokenIndex;
    tokenIndex = { version, ...buildLexicalIndex(await select(faqFilter({ status: "accepted" }))) };
    return tokenIndex;
  };

  const faqs: FaqStore = {
    list: async (o) =>
      (await live(store, await select(faqFilter(o)))).sort(
        (a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.question.localeCompare(b.question),
      ),
    get: async (id) => (await select(sqlEq("id", id)))[0] ?? null,
    add(entries) {
      return serialized(async () => {
        const now = new Date().toISOString();
        const built = entries.map((e) => buildFaq(e, now));
        await upsert(built);
        return built;
      });
    },
    update(id, patch) {
      return serialized(async () => {
        const current = await faqs.get(id);
        if (!current) return null;
        const next = patched(current, patch);
        await upsert([next]);
        return next;
      });
    },
    delete(id) {
      return serialized(async () => {
        const existed = (await table().countRows(sqlEq("id", id))) > 0;
        if (existed) await faqTable.write((t) => t.delete(sqlEq("id", id)));
        return existed;
      });
    },
    async replaceForDocument(documentId, origin, entries) {
      return (await faqs.replaceForDocuments(origin, [{ documentId, entries }])).get(documentId) ?? [];
    },
    replaceForDocuments(origin, docs) {
      return serialized(async () => {
        const out = new Map<string, FaqRecord[]>();
        if (docs.length === 0) return out;
        const now = new Date().toISOString();
        // One query for the whole batch: each Lance query has a fixed cost, and a bulk ingest made one per document.
        const ids = docs.map((d) => d.documentId);
        const old = new Map((await select(`${sqlIn("source_document_id", ids)} AND ${sqlEq("origin", origin)}`)).map((f) => [f.id, f]));
        // A re-extracted entry keeps its id, creation time and review status.
        for (const { documentId, entries } of docs) {
          out.set(
            documentId,
            entries.map((e) => {
              const f = buildFaq(e, now);
              const prev = old.get(f.id);
              return prev ? { ...f, createdAt: prev.createdAt, status: prev.status } : f;
            }),
          );
        }
        const built = [...out.values()].flat();
        const keep = new Set(built.map((f) => f.id));
        const gone = [...old.keys()].filter((id) => !keep.has(id));
        if (gone.length) await faqTable.write((t) => t.delete(sqlIn("id", gone)));
        await upsert(built);
        return out;
      });
    },
    async search(query, o) {
      const q = query.trim();
      if (!q || (await rowCount()) === 0) return [];
      const kbs = o.kbs?.length ? o.kbs : undefined;
      const hits = isOfflineEmbedder(embedder)
        ? lexicalHits(await lexicalIndex(), q, kbs)
        : await hybridSearch(table(), embedder, ftsExists, q, kbs, Math.max(10, o.limit * 3));
      const alive = new Set(
        (
          await live(
            store,
            hits.map((h) => h.faq),
          )
        ).map((f) => f.id),
      );
      return hits
        .filter((h) => alive.has(h.faq.id))
        .sort((a, b) => b.score - a.score || a.faq.question.localeCompare(b.faq.question))
        .slice(0, o.limit);
    },
    moveKb(from, to) {
      return serialized(async () => {
        if ((await table().countRows(sqlEq("kb", from))) > 0)
          await faqTable.write((t) => t.update({ where: sqlEq("kb", from), values: { kb: to } }));
      });
    },
    deleteKb(name) {
      return serialized(async () => {
        await faqTable.write((t) => t.delete(sqlEq("kb", name)));
      });
    },
    async cachedGeneration(key) {
      const rows = await generations.table.query().select(["pairs"]).where(sqlEq("key", key)).limit(1).toArray();
      return rows.length ? String(rows[0].pairs) : null;
    },
    cacheGeneration(key, pairs) {
      return serialized(async () => {
        const row = { key, pairs, created_at: new Date().toISOString() };
        await upsertRows(generations, "key", [row]);
      });
    },
  };
  return faqs;
}

/** The FAQ table of a store (opened once per store object). */
export const getFaqStore: (store: Store) => Promise<FaqStore> = perStore("faqs", openFaqStore);
