import type { Schema } from "apache-arrow";
import type { SideTable } from "./tables";
import type { Store } from "./types";

/** A module's side tables, opened one after another: each key's table by its name, created with its schema. */
export async function openSideTables<K extends string>(
  store: Pick<Store, "sideTable">,
  tables: Readonly<Record<K, { name: string; schema: Schema }>>,
): Promise<Record<K, SideTable>> {
  const opened = {} as Record<K, SideTable>;
  for (const key of Object.keys(tables) as K[]) opened[key] = await store.sideTable(tables[key].name, tables[key].schema);
  return opened;
}
