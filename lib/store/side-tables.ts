import type { Schema } from "apache-arrow";
import type { SideTable } from "./tables";
import type { Store } from "./types";

/** A module's side tables, opened one after another: each key's table named by `names`, with its schema in `schemas`. */
export async function openSideTables<K extends string>(
  store: Pick<Store, "sideTable">,
  names: Readonly<Record<K, string>>,
  schemas: Readonly<Record<K, Schema>>,
): Promise<Record<K, SideTable>> {
  const opened = {} as Record<K, SideTable>;
  for (const key of Object.keys(names) as K[]) opened[key] = await store.sideTable(names[key], schemas[key]);
  return opened;
}
