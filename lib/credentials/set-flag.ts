import type { Store } from "@/lib/store";

type SideTable = Awaited<ReturnType<Store["sideTable"]>>;

/**
 * Sets the boolean column `flag` on the rows `where` selects when one of them still has it false (a revocation,
 * a one-time secret's use): true when it set it, false when there was none to set. Runs in the caller's serial queue.
 */
export async function setFlag(side: SideTable, where: string, flag: "revoked" | "used"): Promise<boolean> {
  if ((await side.table.countRows(`${where} AND ${flag} = false`)) === 0) return false;
  await side.write((t) => t.update({ where, values: { [flag]: true } }));
  return true;
}
