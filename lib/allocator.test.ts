import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { allocatorApplied, allocatorEnv, findJemalloc } from "./allocator.mjs";

const LIB = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";

describe.runIf(process.platform === "linux")("allocatorEnv", () => {
  it("preloads jemalloc when the machine has it, with glibc's arenas capped for what it does not serve", () => {
    const env = allocatorEnv({ PATH: "/bin" }, LIB);
    expect(env).toMatchObject({ PATH: "/bin", LD_PRELOAD: LIB, MALLOC_ARENA_MAX: "2" });
    expect(allocatorApplied(env, LIB)).toBe(true);
    expect(allocatorApplied({ PATH: "/bin" }, LIB)).toBe(false);
  });

  it("keeps glibc with MALLOC_ARENA_MAX=2 without jemalloc, or when SERVER_MALLOC=glibc", () => {
    expect(allocatorEnv({}, null)).toEqual({ MALLOC_ARENA_MAX: "2" });
    expect(allocatorEnv({ SERVER_MALLOC: "glibc" }, LIB)).toEqual({ SERVER_MALLOC: "glibc", MALLOC_ARENA_MAX: "2" });
    expect(allocatorApplied({ MALLOC_ARENA_MAX: "2" }, null)).toBe(true);
  });

  it("leaves an operator's own LD_PRELOAD and MALLOC_ARENA_MAX as they are", () => {
    const mine = { LD_PRELOAD: "/opt/libtcmalloc.so", MALLOC_ARENA_MAX: "4" };
    expect(allocatorEnv(mine, LIB)).toEqual(mine);
    expect(allocatorApplied(mine, LIB)).toBe(true);
  });

  it("a process started with it runs on jemalloc exactly when the machine has it", () => {
    const run = spawnSync(
      process.execPath,
      ["--input-type=module", "-e", `import { allocatorInUse } from "./lib/allocator.mjs"; console.log(allocatorInUse());`],
      { env: allocatorEnv({ PATH: process.env.PATH }), encoding: "utf8" },
    );
    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toBe(findJemalloc() ? "jemalloc" : "glibc malloc");
  });
});
