/**
 * The one rule for who sees a note: its author, and only while they may read every knowledge base its
 * citations come from (a note holds passages of those knowledge bases). Anyone else, an admin included, gets
 * the same 404 as for a note that does not exist.
 */
import { mayReadKb, ownerIdOf, type Principal } from "@/lib/auth/principal";
import type { Store } from "@/lib/store";
import { AppError } from "@/lib/types";
import type { NoteSummary } from "./schema";
import { getNotes, type OwnedNote } from "./store";

/** The author id a note records for the principal ("" for the admin secret and this machine, like conversations). */
export const noteOwnerOf = (p: Principal): string => ownerIdOf(p) ?? "";

export function maySeeNote(p: Principal, note: Pick<NoteSummary, "kbs"> & { owner: string }): boolean {
  const readable = mayReadKb(p);
  return note.owner === noteOwnerOf(p) && note.kbs.every(readable);
}

/** The note if the principal may see it; 404 otherwise. */
export async function noteFor(p: Principal, store: Store, id: string): Promise<OwnedNote> {
  const note = await (await getNotes(store)).get(id);
  if (!note || !maySeeNote(p, note)) throw new AppError("not_found", "There is no such note.");
  return note;
}

/** The notes the principal may see, newest first; with `kb`, those listed under it. */
export async function notesOf(p: Principal, store: Store, kb?: string): Promise<NoteSummary[]> {
  const all = await (await getNotes(store)).list(noteOwnerOf(p));
  return all.filter((n) => maySeeNote(p, n) && (!kb || n.kbs.includes(kb))).map(({ owner: _, ...n }) => n);
}
