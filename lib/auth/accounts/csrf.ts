/** The CSRF double submit, browser-safe: the page reads the cookie and sends its value in the header. */
export const CSRF_COOKIE = "kb_csrf";
export const CSRF_HEADER = "x-csrf-token";
