/**
 * A reference full-text engine: SQLite FTS5 (node:sqlite) with its stock `porter unicode61` tokenizer, BM25
 * with the title weighted 2, no reranking. Han, kana and Hangul runs are written as overlapping character
 * pairs (unicode61 would keep a whole run as one token), in the rows and in the query alike; a query is the OR
 * of its tokens. `npm run eval` puts it beside our pipeline over each set's own passages; the scale bench can
 * build the same index over any rows (in memory or in a file).
 */
import { DatabaseSync } from "node:sqlite";
import { CJK_RUN_RE } from "@/lib/text/cjk";

interface Fts5Row {
  id: string;
  /** The document the row belongs to (the eval's file name). */
  doc: string;
  title: string;
  text: string;
}

interface Fts5Hit extends Omit<Fts5Row, "title"> {
  /** BM25 as FTS5 reports it, negated: higher is better. */
  score: number;
}

export interface Fts5Reference {
  add(rows: Iterable<Fts5Row>): void;
  search(query: string, limit: number): Fts5Hit[];
  close(): void;
}

/** Title weight, then body weight, for bm25(). */
const TITLE_WEIGHT = 2;

/** Han (kana, Hangul) runs as space-separated overlapping pairs; a run of one character stays itself. */
export function cjkBigrams(text: string): string {
  return text.replace(CJK_RUN_RE, (run) => {
    const chars = [...run];
    if (chars.length === 1) return ` ${run} `;
    const pairs: string[] = [];
    for (let i = 0; i + 1 < chars.length; i++) pairs.push(chars[i] + chars[i + 1]);
    return ` ${pairs.join(" ")} `;
  });
}

/** The query as an FTS5 expression: every word or pair quoted (no operators), joined with OR. */
export function fts5Query(query: string): string {
  const tokens = cjkBigrams(query.toLowerCase()).match(/[\p{L}\p{N}\p{M}]+/gu) ?? [];
  return [...new Set(tokens)].map((t) => `"${t}"`).join(" OR ");
}

/** Opens an FTS5 index at `file` (":memory:" by default). */
export function openFts5Reference(file = ":memory:"): Fts5Reference {
  const db = new DatabaseSync(file);
  db.exec(
    "CREATE VIRTUAL TABLE IF NOT EXISTS passages USING fts5(id UNINDEXED, doc UNINDEXED, title, body, raw UNINDEXED, tokenize = 'porter unicode61')",
  );
  const insert = db.prepare("INSERT INTO passages (id, doc, title, body, raw) VALUES (?, ?, ?, ?, ?)");
  // bm25() weights follow the columns: id, doc, title, body, raw.
  const select = db.prepare(
    `SELECT id, doc, raw, bm25(passages, 0, 0, ${TITLE_WEIGHT}, 1, 0) AS rank FROM passages WHERE passages MATCH ? ORDER BY rank LIMIT ?`,
  );
  return {
    add(rows) {
      db.exec("BEGIN");
      try {
        for (const r of rows) insert.run(r.id, r.doc, cjkBigrams(r.title), cjkBigrams(r.text), r.text);
        db.exec("COMMIT");
      } catch (err) {
        db.exec("ROLLBACK");
        throw err;
      }
    },
    search(query, limit) {
      const match = fts5Query(query);
      if (!match) return [];
      return (select.all(match, limit) as { id: string; doc: string; raw: string; rank: number }[]).map((r) => ({
        id: r.id,
        doc: r.doc,
        text: r.raw,
        score: -r.rank,
      }));
    },
    close: () => db.close(),
  };
}
