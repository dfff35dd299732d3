/**
 * Server side (pages only): whether the app can be reached from other machines, and at which LAN
 * addresses, so the Connect dialog can give a URL that works elsewhere and say what sharing needs.
 */
import os from "node:os";
import { isLoopbackHost, resolveAuthSettings } from "@/lib/auth/config";
import { getConfig } from "@/lib/config";
import type { ShareInfo } from "@/lib/kb/connect";

export function shareInfo(): ShareInfo {
  const cfg = getConfig().auth;
  const settings = resolveAuthSettings(cfg);
  // server.mjs records where it listens; anything else (e.g. `next start`) is reachable from outside.
  const bind = (process.env.KB_BIND_HOST ?? "0.0.0.0").replace(/^\[|\]$/g, "");
  let lanHosts: string[] = [];
  if (bind === "0.0.0.0" || bind === "::") {
    lanHosts = Object.values(os.networkInterfaces())
      .flat()
      .filter((a): a is os.NetworkInterfaceInfo => !!a && a.family === "IPv4" && !a.internal)
      .map((a) => a.address);
  } else if (!isLoopbackHost(bind)) {
    lanHosts = [bind];
  }
  return {
    lanHosts,
    loopbackOnly: lanHosts.length === 0,
    requireToken: settings.requireToken || !settings.localOwner,
    adminTokenSet: !!settings.adminToken,
  };
}
