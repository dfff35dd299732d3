import { InvalidRequestError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { mediaType, readBodyBytes } from "@/lib/http/body";

/** The most an OAuth form body (token, revocation, consent) may hold. */
const MAX_FORM_BYTES = 64 * 1024;

/**
 * An `application/x-www-form-urlencoded` body (the token and revocation endpoints, the consent form), at most
 * 64 KB counted while reading. `single`: a parameter sent twice is an error (RFC 6749 §3.1), except those in `repeatable`.
 */
export async function readForm(req: Request, repeatable: readonly string[] = []): Promise<URLSearchParams> {
  if (mediaType(req) !== "application/x-www-form-urlencoded") {
    throw new InvalidRequestError("send the parameters as application/x-www-form-urlencoded");
  }
  const bytes = await readBodyBytes(req, MAX_FORM_BYTES);
  if (!bytes) throw new InvalidRequestError(`the request body is larger than ${MAX_FORM_BYTES / 1024} KB`);
  const form = new URLSearchParams(bytes.toString("utf8"));
  const seen = new Set<string>();
  for (const key of form.keys()) {
    if (seen.has(key) && !repeatable.includes(key)) throw new InvalidRequestError(`${key} is given more than once`);
    seen.add(key);
  }
  return form;
}
