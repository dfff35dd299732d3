export type { ShareInfo } from "@/lib/kb/connect";
