/**
 * The server's secret settings, each with a value a test can look for, for the tests that a child process or
 * worker sees none of them (lib/worker/child-env.ts). `setServerSecrets` puts them into this process's environment
 * and returns how to take them out again.
 */
import { restoreEnv } from "./env";

export const SERVER_SECRETS: Record<string, string> = {
  KB_OWNER_TOKEN: "owner-token-that-no-child-may-see",
  KB_PEER_SECRET: "peer-secret-that-no-child-may-see",
  ADMIN_TOKEN: "admin-token-that-no-child-may-see",
  SOURCE_SECRET_KEY: "source-secret-key-that-no-child-may-see",
  OPENAI_API_KEY: "sk-openai-key-that-no-child-may-see",
  EMBEDDING_API_KEY: "embedding-key-that-no-child-may-see",
  OIDC_CLIENT_SECRET: "oidc-secret-that-no-child-may-see",
};

export function setServerSecrets(): () => void {
  const before = Object.fromEntries(Object.keys(SERVER_SECRETS).map((k) => [k, process.env[k]]));
  Object.assign(process.env, SERVER_SECRETS);
  return () => restoreEnv(before);
}
