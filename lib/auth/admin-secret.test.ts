import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { getConfig } from "@/lib/config";
import { adminSecretFile, ensureAdminSecret, isAdminSecret } from "./admin-secret";

const dir = mkdtempSync(path.join(os.tmpdir(), "admin-secret-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("first-run admin secret", () => {
  it("is generated once, printed once, stored only as a hash, and accepted as the admin secret", () => {
    const saved = { DATA_DIR: process.env.DATA_DIR, ADMIN_TOKEN: process.env.ADMIN_TOKEN };
    process.env.DATA_DIR = dir;
    delete process.env.ADMIN_TOKEN;
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      ensureAdminSecret(getConfig());
      ensureAdminSecret(getConfig());
      const printed = log.mock.calls.map((c) => String(c[0])).join("\n");
      const secret = /kba_[A-Za-z0-9_-]+/.exec(printed)?.[0] ?? "";
      expect(log).toHaveBeenCalledTimes(1);
      expect(secret).toMatch(/^kba_.{32}$/);
      const file = adminSecretFile();
      expect(file).toBe(path.join(dir, "admin-secret.sha256"));
      expect(readFileSync(file, "utf8")).not.toContain(secret);
      expect(statSync(file).mode & 0o077).toBe(0);
      expect(isAdminSecret(secret, undefined)).toBe(true);
      expect(isAdminSecret(`${secret}x`, undefined)).toBe(false);
      // ADMIN_TOKEN, when set, is the only admin secret.
      expect(isAdminSecret(secret, "configured")).toBe(false);
      expect(isAdminSecret("configured", "configured")).toBe(true);
    } finally {
      log.mockRestore();
      Object.assign(process.env, saved);
      if (saved.DATA_DIR === undefined) delete process.env.DATA_DIR;
      if (saved.ADMIN_TOKEN === undefined) delete process.env.ADMIN_TOKEN;
    }
  });
});
