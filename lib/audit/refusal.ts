/**
 * Which refused requests the audit log keeps (web API and MCP alike): 403 and 429, and a 401 of a request that
 * presented a credential (a wrong admin secret or access token). A 401 without any is a browser or client that
 * has not signed in yet, not an attempt.
 */
export const isRecordedRefusal = (req: Request, status: number): boolean =>
  status === 403 || status === 429 || (status === 401 && req.headers.get("authorization") !== null);
