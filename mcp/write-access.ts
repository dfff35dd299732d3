import { canWrite } from "@/lib/auth/tokens";
import type { ToolContext } from "./context";

/** The refusal a write tool answers without a read-write token, or null when the call may write. */
export function writeRefusal(ctx: ToolContext, tool: string): string | null {
  if (canWrite(ctx.token)) return null;
  return (
    `${tool} requires a read-write access token: send "Authorization: Bearer <token>" with a token of scope ` +
    `read-write (create one in the app's Connect dialog).${ctx.token ? " The token of this request can only read." : ""}`
  );
}
