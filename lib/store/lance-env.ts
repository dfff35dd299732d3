/**
 * Lance's thread pools, configured before its native module first uses them (they are created lazily and
 * read these variables once). By default Lance sizes its compute pool as CPUs − LANCE_IO_CORE_RESERVATION (2),
 * i.e. ONE thread on a 2-core machine, and a task on that pool that waits on another one queued behind it
 * deadlocks: Table.optimize() once a vector index exists waited forever. At least 4 compute threads avoid it
 * (extra threads only cost memory when idle). An operator's explicit setting always wins.
 * Variables read by lance-core (rust/lance-core/src/utils/tokio.rs): LANCE_CPU_THREADS, LANCE_IO_THREADS,
 * LANCE_IO_CORE_RESERVATION.
 */
import os from "node:os";
import { intEnv } from "@/lib/config";

const cpus = Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
const LANCE_CPU_THREADS_DEFAULT = Math.max(4, cpus);

process.env.LANCE_CPU_THREADS ||= String(LANCE_CPU_THREADS_DEFAULT);
process.env.LANCE_IO_THREADS ||= String(Math.max(8, cpus * 2));
// indexStats() without the (large) centroids; also silences Lance's warning about the coming default.
process.env.LANCE_INCLUDE_VECTOR_CENTROIDS ||= "false";

/**
 * Lance's caches are per session and default to 6 GB of index data and 1 GB of file metadata. Every
 * maintenance run writes new index files that are cached afresh, so under steady writes a server grew by
 * gigabytes; one bounded session per process keeps it in check (LANCE_INDEX_CACHE_MB, LANCE_METADATA_CACHE_MB).
 */
export const LANCE_CACHE_MB = {
  index: intEnv("LANCE_INDEX_CACHE_MB", 256),
  metadata: intEnv("LANCE_METADATA_CACHE_MB", 64),
};
