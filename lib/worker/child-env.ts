/**
 * The environment of every process and worker the server starts (git, the parse and OCR workers): only what
 * running needs, never the server's own settings, which hold its secrets (KB_OWNER_TOKEN, KB_PEER_SECRET,
 * ADMIN_TOKEN, SOURCE_SECRET_KEY, OPENAI_API_KEY…). Those children handle what others chose — a Git server's
 * answers, an uploaded file, a scanned page — so whatever runs in them learns nothing it could pass on.
 * A proxy setting is not passed either: the server's own requests use none, and git must connect to the address
 * that was checked (lib/sources/git.ts).
 */

/** Variables a child gets from the server's environment, when set. */
const PASSED = [
  // where programs, the home folder and temporary files are
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "TMPDIR",
  "TMP",
  "TEMP",
  // language, time zone
  "LANG",
  "LANGUAGE",
  "TZ",
  // certificates an operator added
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
  // Node and the memory allocator (scripts/allocator.mjs)
  "NODE_ENV",
  "NODE_OPTIONS",
  "LD_PRELOAD",
  "LD_LIBRARY_PATH",
  "MALLOC_ARENA_MAX",
  "MALLOC_CONF",
];

/** The environment for a child: the allowed variables of this process's, and `extra` (what the child is told). */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  // Next.js types NODE_ENV as always set; a child's environment may lack it, as any variable.
  const env = {} as NodeJS.ProcessEnv;
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && (PASSED.includes(name) || name.startsWith("LC_"))) env[name] = value;
  }
  return { ...env, ...extra };
}
