import { hash, verify } from "@node-rs/argon2";

// Argon2id with the OWASP minimum (19 MiB, 2 passes): costly to guess, still quick for a sign-in (see docs/design-decisions.md).
const OPTIONS = { memoryCost: 19456, timeCost: 2, parallelism: 1 };

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

let dummy: Promise<string> | null = null;

/** Checks a password; an unknown account costs the same time as a known one (no account probing by timing). */
export async function checkPassword(stored: string | null, password: string): Promise<boolean> {
  if (!stored) {
    dummy ??= hashPassword("not a password of anyone");
    await verify(await dummy, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
