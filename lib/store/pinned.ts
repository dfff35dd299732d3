/**
 * Read-only handles of a table pinned to one version. The newest one asked for is kept while searches keep
 * asking for it (opening one reads the manifest); an older one, asked for by a search that read the version
 * just before a commit, is opened for that read alone. A handle is closed once no read uses it (closing a
 * table while Lance reads it kills the process).
 */
import type * as lancedb from "@lancedb/lancedb";

interface Pin {
  source: lancedb.Table;
  version: number;
  handle: Promise<lancedb.Table>;
  users: number;
  /** No new read will use it: closed when the last one ends. */
  retired: boolean;
}

export function pinnedVersions(open: (version: number) => Promise<lancedb.Table>) {
  let kept: Pin | null = null;
  const close = (pin: Pin) => {
    pin.handle.then((t) => t.close()).catch(() => undefined);
  };
  const retire = (pin: Pin) => {
    pin.retired = true;
    if (pin.users === 0) close(pin);
  };
  const pinFor = (source: lancedb.Table, version: number): Pin => {
    if (kept?.source === source && kept.version === version) return kept;
    const pin: Pin = { source, version, handle: open(version), users: 0, retired: false };
    if (kept?.source === source && kept.version > version) pin.retired = true;
    else {
      if (kept) retire(kept);
      kept = pin;
      pin.handle.catch(() => {
        if (kept === pin) kept = null;
      });
    }
    return pin;
  };
  return {
    /** `read` on `source` (the table handle now in use, replaced when the table is recreated) at `version`. */
    async read<T>(source: lancedb.Table, version: number, read: (table: lancedb.Table) => Promise<T>): Promise<T> {
      const pin = pinFor(source, version);
      pin.users++;
      try {
        return await read(await pin.handle);
      } finally {
        if (--pin.users === 0 && pin.retired) close(pin);
      }
    },
    close(): void {
      if (kept) retire(kept);
      kept = null;
    },
  };
}
