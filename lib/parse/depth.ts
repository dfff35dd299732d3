/**
 * A structural limit checked on the raw HTML before any DOM is built: DOM building and Readability take
 * super-linear time (and stack) in the nesting depth, so a page nested deeper than any real one is refused
 * in one cheap pass. Elements that close implicitly (p, li, td…) and void elements are not counted.
 */
const VOID = new Set("area base br col embed hr img input link meta param source track wbr".split(" "));
const IMPLICIT = new Set("p li dt dd tr td th thead tbody tfoot option optgroup colgroup rt rp caption".split(" "));
const RAW = new Set(["script", "style", "textarea", "title", "xmp", "noscript", "template"]);

/** Whether `html` nests elements deeper than `max` levels (stops scanning as soon as it does). */
export function exceedsNesting(html: string, max: number): boolean {
  const tag = /<!--[\s\S]*?(?:-->|$)|<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)\b[^>]*?(\/?)>/g;
  let depth = 0;
  // exec, not matchAll: the loop moves tag.lastIndex past raw-text elements.
  for (let m = tag.exec(html); m; m = tag.exec(html)) {
    if (!m[2]) continue; // comment
    const name = m[2].toLowerCase();
    if (VOID.has(name) || IMPLICIT.has(name)) continue;
    if (m[1]) {
      if (depth > 0) depth--;
      continue;
    }
    if (m[3]) continue; // self-closing
    if (RAW.has(name)) {
      const end = html.toLowerCase().indexOf(`</${name}`, tag.lastIndex);
      tag.lastIndex = end === -1 ? html.length : end;
      continue;
    }
    if (++depth > max) return true;
  }
  return false;
}
