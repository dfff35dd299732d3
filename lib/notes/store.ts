/**
 * The `notes` table, a side table of the document store beside the conversations. A note is its author's
 * (`owner`: a user id, "" for the admin secret and this machine); who may see one is lib/notes/access.ts.
 */
import { randomUUID } from "node:crypto";
import { Schema } from "apache-arrow";
import { getStore, perStore, type Store } from "@/lib/store";
import { textField } from "@/lib/store/schema";
import { sqlEq } from "@/lib/store/sql";
import { upsertRows } from "@/lib/store/tables";
import { AppError } from "@/lib/types";
import { type Note, type NoteKind, type NoteSummary, noteBodySchema } from "./schema";

const NOTES_TABLE = "notes";
const notesSchema = new Schema([
  textField("id"),
  textField("owner"),
  textField("kind"),
  textField("title"),
  textField("kbs"),
  textField("body"),
  textField("created_at"),
  textField("updated_at"),
]);
const SUMMARY_COLUMNS = ["id", "owner", "kind", "title", "kbs", "created_at", "updated_at"];

/** A note with its author. */
export type OwnedNote = Note & { owner: string };
type NewNote = Omit<Note, "id" | "createdAt" | "updatedAt">;

export interface NoteStore {
  /** The notes of `owner`, newest first. */
  list(owner: string): Promise<(NoteSummary & { owner: string })[]>;
  get(id: string): Promise<OwnedNote | null>;
  add(owner: string, note: NewNote): Promise<OwnedNote>;
  rename(id: string, title: string): Promise<OwnedNote>;
  delete(id: string): Promise<boolean>;
}

function kbsOf(json: unknown): string[] {
  try {
    const v = JSON.parse(String(json));
    return Array.isArray(v) ? v.map(String) : [];
  } catch {
    return [];
  }
}

function rowToSummary(r: Record<string, unknown>): NoteSummary & { owner: string } {
  return {
    id: String(r.id),
    owner: String(r.owner),
    kind: String(r.kind) as NoteKind,
    title: String(r.title),
    kbs: kbsOf(r.kbs),
    createdAt: String(r.created_at),
    updatedAt: String(r.updated_at),
  };
}

function bodyOf(json: unknown): Pick<Note, "text" | "check" | "citations" | "question" | "model"> {
  try {
    const parsed = noteBodySchema.safeParse(JSON.parse(String(json)));
    if (parsed.success) return parsed.data as unknown as Note;
  } catch {}
  return { text: "", citations: [] };
}

function toRow(n: OwnedNote): Record<string, unknown> {
  const { id, owner, kind, title, kbs, createdAt, updatedAt, text, check, citations, question, model } = n;
  return {
    id,
    owner,
    kind,
    title,
    kbs: JSON.stringify([...kbs].sort()),
    body: JSON.stringify({ text, check, citations, question, model }),
    created_at: createdAt,
    updated_at: updatedAt,
  };
}

async function openNotes(store: Store): Promise<NoteStore> {
  const side = await store.sideTable(NOTES_TABLE, notesSchema);
  const get = async (id: string): Promise<OwnedNote | null> => {
    const rows = await side.table.query().where(sqlEq("id", id)).limit(1).toArray();
    return rows.length ? { ...rowToSummary(rows[0]), ...bodyOf(rows[0].body) } : null;
  };
  return {
    async list(owner) {
      const rows = await side.table.query().where(sqlEq("owner", owner)).select(SUMMARY_COLUMNS).toArray();
      return rows.map(rowToSummary).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    },
    get,
    async add(owner, note) {
      const now = new Date().toISOString();
      const n: OwnedNote = { ...note, id: randomUUID(), owner, createdAt: now, updatedAt: now };
      await upsertRows(side, "id", [toRow(n)]);
      return n;
    },
    async rename(id, title) {
      const n = await get(id);
      if (!n) throw new AppError("not_found", "There is no such note.");
      const renamed = { ...n, title, updatedAt: new Date().toISOString() };
      await upsertRows(side, "id", [toRow(renamed)]);
      return renamed;
    },
    async delete(id) {
      if (!(await get(id))) return false;
      await side.write((t) => t.delete(sqlEq("id", id)));
      return true;
    },
  };
}

const notesOf = perStore("notes", openNotes);

/** The process-wide note store of `store` (default: the process-wide store, getStore()). */
export async function getNotes(store?: Store): Promise<NoteStore> {
  return notesOf(store ?? (await getStore()));
}
