export const COMMON_HEADERS: Readonly<Record<string, string>>;
export const API_HEADERS: Readonly<Record<string, string>>;
