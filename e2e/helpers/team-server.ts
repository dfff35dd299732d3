/**
 * An app of a spec's own that asks everyone to sign in, with readers invited by the admin token: each joins
 * through their invite link in a browser of their own locale.
 */
import path from "node:path";
import type { Browser, BrowserContext, Page } from "@playwright/test";
import { type OwnServer, startOwnServer } from "./own-server";
import { expect, WORKER_DATA_DIR } from "./servers";

const PASSWORD = "a long team password";

export interface TeamServer {
  server: OwnServer;
  /** A request with the admin token; a body of FormData goes as multipart, anything else as JSON. */
  admin(method: string, pathname: string, json?: unknown): Promise<Response>;
  /** Invites `who` (`who@team.test`) as a reader of `kbs`. */
  inviteReader(who: string, kbs: string[]): Promise<void>;
  /** A page of a new browser context in `locale`, signed in as the invited `who`. */
  join(browser: Browser, who: string, locale: string): Promise<Page>;
}

/** `env`: more of the server's environment (a model to chat with). */
export async function startTeamServer(port: number, name: string, env: Record<string, string> = {}): Promise<TeamServer> {
  const adminToken = `${name}-admin-secret-0123456789`;
  const data = path.resolve(WORKER_DATA_DIR, `${name}-${Date.now().toString(36)}`);
  const server = await startOwnServer(port, {
    DATA_DIR: data,
    KNOWLEDGE_DIR: "knowledge",
    REQUIRE_LOGIN: "1",
    ADMIN_TOKEN: adminToken,
    AUTH_FAILURE_LIMIT: "1000",
    ...env,
  });
  const links: Record<string, string> = {};
  /** The browser contexts join made: closed with the server, so that no page of a stopped server lives on in the worker's browser. */
  const contexts: BrowserContext[] = [];
  const admin = (method: string, pathname: string, json?: unknown) => {
    const form = json instanceof FormData;
    return fetch(`${server.base}${pathname}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, ...(json && !form ? { "content-type": "application/json" } : {}) },
      body: form ? json : json ? JSON.stringify(json) : undefined,
    });
  };
  return {
    server: {
      ...server,
      async stop() {
        await Promise.all(contexts.splice(0).map((c) => c.close().catch(() => undefined)));
        await server.stop();
      },
    },
    admin,
    async inviteReader(who, kbs) {
      const r = await admin("POST", "/api/invites", { email: `${who}@team.test`, role: "reader", kbs });
      expect(r.status, await r.clone().text()).toBe(201);
      links[who] = ((await r.json()) as { link: string }).link;
    },
    async join(browser, who, locale) {
      const context = await browser.newContext({ locale });
      contexts.push(context);
      const page = await context.newPage();
      await page.goto(links[who]);
      await expect(page.getByTestId("join-intro")).toBeVisible();
      await page.getByTestId("join-password").fill(PASSWORD);
      await page.getByTestId("join-submit").click();
      await page.waitForURL(`${server.base}/`);
      return page;
    },
  };
}
