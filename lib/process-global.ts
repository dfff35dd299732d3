/**
 * One value per process, made on first use. Next.js bundles route handlers, instrumentation and the
 * server separately, so a module-level variable would exist once per bundle; a symbol on globalThis is shared.
 */
export function processGlobal<T>(name: string, create: () => T): T {
  const key = Symbol.for(`kb-mcp-chat.${name}`);
  const g = globalThis as unknown as Record<symbol, T | undefined>;
  let value = g[key];
  if (value === undefined) {
    value = create();
    g[key] = value;
  }
  return value;
}
