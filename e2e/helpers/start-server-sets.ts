/**
 * Playwright's global set-up: starts every worker's server set (e2e/helpers/server-sets.ts) at once and waits until
 * each answers its health URL; the function it returns stops them. Playwright's own webServer list starts servers one
 * after another, which on two cores left a core idle through most of each server's start-up.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { type ServerCommand, serverCommands } from "./server-sets";

const HEALTH_POLL_MS = 250;

const isApp = (server: ServerCommand) => server.command[1] === "server.mjs";

const answers = (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(5000) }).then(
    (r) => r.ok,
    () => false,
  );

/** Kills a server's whole process group (server.mjs runs itself once more with its allocator). */
function stop(child: ChildProcess) {
  try {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGKILL");
  } catch {
    // already gone
  }
}

async function start(server: ServerCommand, children: ChildProcess[]): Promise<void> {
  if (await answers(server.url)) throw new Error(`${server.url} already answers: another run uses this port (set E2E_PORT_BASE)`);
  const child = spawn(server.command[0], server.command.slice(1), {
    env: { ...process.env, ...server.env },
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
  children.push(child);
  let err = "";
  child.stderr!.on("data", (d) => {
    err += d;
    process.stderr.write(`[${server.name}] ${d}`);
  });
  const deadline = Date.now() + server.timeoutMs;
  while (!(await answers(server.url))) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${server.name} exited before it answered ${server.url}:\n${err}`);
    if (Date.now() > deadline) throw new Error(`${server.name} did not answer ${server.url} within ${server.timeoutMs / 1000} s:\n${err}`);
    await new Promise((r) => setTimeout(r, HEALTH_POLL_MS));
  }
}

export default async function startServerSets(): Promise<() => Promise<void>> {
  const children: ChildProcess[] = [];
  const stopAll = () => children.forEach(stop);
  process.once("exit", stopAll);
  try {
    // One app server starts first: the others then find its compiled code in Node's compile cache
    // (NODE_COMPILE_CACHE, set by the test command) instead of all compiling the same code at once.
    const [first, ...rest] = serverCommands().sort((a, b) => Number(isApp(b)) - Number(isApp(a)));
    const others = rest.filter((s) => !isApp(s)).map((s) => start(s, children));
    // Awaited below; a failure of the first server must not leave these rejected and unawaited.
    for (const other of others) other.catch(() => {});
    await start(first, children);
    await Promise.all([...others, ...rest.filter(isApp).map((s) => start(s, children))]);
  } catch (e) {
    stopAll();
    throw e;
  }
  return async () => stopAll();
}
