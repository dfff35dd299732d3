import type { Metadata } from "next";
import { AuditLog } from "@/components/account/AuditLog";

export const metadata: Metadata = { title: "Audit log · Knowledge Chat" };

export default function AuditPage() {
  return <AuditLog />;
}
