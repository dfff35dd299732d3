/** The consent page's words (server-rendered, in the language the browser's Accept-Language prefers). */
export const CONSENT_MESSAGES = {
  en: {
    title: "Allow access to your knowledge base?",
    wants: "{name} wants to use this knowledge base through MCP.",
    redirect: "After you decide, you go back to {uri}",
    endpoint: "Endpoint",
    secret: "Admin secret",
    secretHelp: "Only whoever holds this server's admin secret (ADMIN_TOKEN, or the one printed at first start) can allow access.",
    kbs: "Knowledge bases",
    oneKb: "This endpoint serves only the knowledge base {kb}.",
    access: "Access",
    read: "Read only (search and read)",
    readWrite: "Read and write (also add and delete documents and FAQs)",
    allow: "Allow",
    deny: "Deny",
    failedSecret: "That is not the admin secret.",
    failedKbs: "Choose at least one knowledge base.",
    failedAccess: "Choose read only or read and write.",
    errorTitle: "This authorization request cannot be handled",
    expired: "This authorization request has expired. Start again from the application.",
    wantsWrite: "It asks for write access.",
    signedInAs: "You are signed in as {email}: you can allow access to your own knowledge bases.",
    signInInstead: "Or sign in with your account.",
  },
  zh: {
    title: "允许访问你的知识库？",
    wants: "{name} 请求通过 MCP 使用此知识库。",
    redirect: "做出选择后将返回 {uri}",
    endpoint: "端点",
    secret: "管理员密钥",
    secretHelp: "只有持有本服务器管理员密钥（ADMIN_TOKEN，或首次启动时打印的密钥）的人才能授权。",
    kbs: "知识库",
    oneKb: "此端点只提供知识库 {kb}。",
    access: "权限",
    read: "只读（搜索和阅读）",
    readWrite: "读写（还可以添加和删除文档与常见问题）",
    allow: "允许",
    deny: "拒绝",
    failedSecret: "管理员密钥不正确。",
    failedKbs: "请至少选择一个知识库。",
    failedAccess: "请选择只读或读写。",
    errorTitle: "无法处理此授权请求",
    expired: "此授权请求已过期，请从应用重新开始。",
    wantsWrite: "它请求写入权限。",
    signedInAs: "你已登录为 {email}：可以授权访问你有权使用的知识库。",
    signInInstead: "或用你的账号登录。",
  },
} as const;

/** The app's rule (components/i18n.tsx): Chinese when the browser lists Chinese, English otherwise. */
export function localeFromAcceptLanguage(header: string | null): "en" | "zh" {
  return (header ?? "")
    .split(",")
    .map((part) => part.trim().split(";"))
    .some(([tag, ...params]) => tag.toLowerCase().startsWith("zh") && !params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(p)))
    ? "zh"
    : "en";
}

export { fill } from "@/components/fill";
