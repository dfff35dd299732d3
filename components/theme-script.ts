export const THEME_KEY = "kb-theme";

/**
 * Runs before the first paint (inline in <head>), so a dark page never flashes light: the same rule as
 * applyTheme (components/Preferences.tsx), written out because it cannot import. A module of its own, not
 * a client one: lib/security/csp.ts allows it by its hash.
 */
export const THEME_SCRIPT = `try{var t=localStorage.getItem("${THEME_KEY}");var d=t==="dark"||(t!=="light"&&matchMedia("(prefers-color-scheme: dark)").matches);document.documentElement.classList.toggle("dark",d);document.documentElement.style.colorScheme=d?"dark":"light"}catch(e){}`;
