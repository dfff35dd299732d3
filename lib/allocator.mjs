/**
 * The memory allocator an app server runs with. server.mjs applies it to itself (running itself once more
 * with it); the bench's and the e2e specs' servers are started with it applied, so they serve in the pid they
 * started and measure what `npm start` runs.
 *
 * Lance's query threads spent about 0.4 of the 2 cores in glibc's malloc (its free-list upkeep,
 * `unlink_chunk`, alone 11 % of their samples) while a 1M-chunk server answered searches at concurrency 8.
 * With jemalloc preloaded the same server answered 110–115 req/s against 71–77, at 1.41 GB RSS against
 * 1.87 GB (see docs/benchmarks.md). Without jemalloc on the machine (Debian:
 * `libjemalloc2`), glibc is kept with MALLOC_ARENA_MAX=2: its per-thread arenas, fragmented by Lance's pools,
 * grew a server from 914 to 1,520 MB in 90 s of uploads and searches, against 583 → 642 MB with the variable.
 * An operator's own LD_PRELOAD or MALLOC_ARENA_MAX wins; SERVER_MALLOC=glibc keeps glibc.
 */
import { existsSync, readFileSync } from "node:fs";

const JEMALLOC_PATHS = [
  "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2",
  "/usr/lib/aarch64-linux-gnu/libjemalloc.so.2",
  "/usr/lib64/libjemalloc.so.2",
  "/usr/lib/libjemalloc.so.2",
  "/usr/local/lib/libjemalloc.so.2",
];

/** The first jemalloc library found, or null (and null off Linux). */
export function findJemalloc(paths = JEMALLOC_PATHS) {
  if (process.platform !== "linux") return null;
  return paths.find((p) => existsSync(p)) ?? null;
}

/**
 * `env` with the allocator settings a server should start with. Applying it to its own result changes
 * nothing, which is how server.mjs tells that it already runs with them.
 */
export function allocatorEnv(env = process.env, jemalloc = findJemalloc()) {
  if (process.platform !== "linux") return { ...env };
  const out = { ...env, MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX ?? "2" };
  if (!env.LD_PRELOAD && jemalloc && env.SERVER_MALLOC !== "glibc") out.LD_PRELOAD = jemalloc;
  return out;
}

/** Whether `env` already holds what allocatorEnv would set. */
export function allocatorApplied(env = process.env, jemalloc = findJemalloc()) {
  const want = allocatorEnv(env, jemalloc);
  return want.MALLOC_ARENA_MAX === env.MALLOC_ARENA_MAX && want.LD_PRELOAD === env.LD_PRELOAD;
}

/** The allocator this process really runs with, read from its memory map: "jemalloc" or "glibc malloc". */
export function allocatorInUse() {
  try {
    return /libjemalloc/.test(readFileSync("/proc/self/maps", "utf8")) ? "jemalloc" : "glibc malloc";
  } catch {
    return "the platform's malloc";
  }
}
