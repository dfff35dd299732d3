type Env = Record<string, string | undefined>;
export function findJemalloc(paths?: readonly string[]): string | null;
export function allocatorEnv(env?: Env, jemalloc?: string | null): NodeJS.ProcessEnv;
export function allocatorApplied(env?: Env, jemalloc?: string | null): boolean;
export function allocatorInUse(): string;
