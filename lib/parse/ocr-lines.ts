/**
 * Text lines of a page from the detector's map (lib/parse/ocr-engine.ts), and each line cut out of the full-resolution
 * page straightened and scaled for the recogniser. The map is made from a smaller copy of the page (the detector's cost
 * grows with its pixels; lines are found as well at ~1,000 px), and the lines are cut from the page itself, so the
 * recogniser reads them at full detail. Boxes follow PaddleOCR's DB post-processing: each region of text pixels as its
 * smallest turned rectangle, grown by area × 1.5 / perimeter on each side (the map marks a line's core only).
 */

/** A line's box on the page: centre, size along and across the line, and its angle (radians; rows run along `ux, uy`). */
export interface LineBox {
  cx: number;
  cy: number;
  width: number;
  height: number;
  ux: number;
  uy: number;
}

/** A page's pixels, 3 channels (RGB), row by row. */
export interface Rgb {
  data: Uint8Array;
  width: number;
  height: number;
}

/** Regions narrower than this (map pixels), before and after growing, are specks. */
const MIN_SIDE = 3;
/** DB's unclip ratio: a region grows by area × ratio / perimeter on every side. */
const UNCLIP = 1.5;
/** Regions this much longer than high tell the page's skew. */
const LONG_REGION = 3;
/** A box this much taller than wide holds a vertical line of text (read turned, as PaddleOCR does). */
const VERTICAL = 1.5;

interface Region {
  pixels: number[];
}

/** The 8-connected regions of set pixels in a width × height mask. */
function regions(mask: Uint8Array, width: number, height: number): Region[] {
  const seen = new Uint8Array(mask.length);
  const out: Region[] = [];
  const stack: number[] = [];
  for (let start = 0; start < mask.length; start++) {
    if (!mask[start] || seen[start]) continue;
    const pixels: number[] = [];
    seen[start] = 1;
    stack.push(start);
    while (stack.length) {
      const p = stack.pop()!;
      pixels.push(p);
      const x = p % width;
      const y = (p - x) / width;
      for (let dy = -1; dy <= 1; dy++) {
        const ny = y + dy;
        if (ny < 0 || ny >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          if (nx < 0 || nx >= width) continue;
          const q = ny * width + nx;
          if (mask[q] && !seen[q]) {
            seen[q] = 1;
            stack.push(q);
          }
        }
      }
    }
    out.push({ pixels });
  }
  return out;
}

/** A region's principal angle (radians, −π/2..π/2) and its length over its height along that angle. */
function orientation(r: Region, width: number): { angle: number; aspect: number } {
  let mx = 0;
  let my = 0;
  for (const p of r.pixels) {
    mx += p % width;
    my += Math.floor(p / width);
  }
  mx /= r.pixels.length;
  my /= r.pixels.length;
  let xx = 0;
  let yy = 0;
  let xy = 0;
  for (const p of r.pixels) {
    const dx = (p % width) - mx;
    const dy = Math.floor(p / width) - my;
    xx += dx * dx;
    yy += dy * dy;
    xy += dx * dy;
  }
  const angle = 0.5 * Math.atan2(2 * xy, xx - yy);
  const spread = Math.sqrt((xx + yy) / 2 + Math.sqrt(((xx - yy) / 2) ** 2 + xy ** 2));
  const across = Math.sqrt(Math.max(0, (xx + yy) / 2 - Math.sqrt(((xx - yy) / 2) ** 2 + xy ** 2)));
  return { angle, aspect: spread / Math.max(1e-6, across) };
}

/** The page's skew: the median angle of its long regions (0 when it has none); a scanner turns a page as a whole. */
function pageSkew(found: Region[], width: number): number {
  const angles = found
    .filter((r) => r.pixels.length >= 20)
    .map((r) => orientation(r, width))
    .filter((o) => o.aspect >= LONG_REGION && Math.abs(o.angle) < Math.PI / 8)
    .map((o) => o.angle)
    .sort((a, b) => a - b);
  return angles.length ? angles[Math.floor(angles.length / 2)] : 0;
}

/**
 * The boxes of the text lines in a detector mask (1 = text), in the mask's pixels: each region as its rectangle along
 * the page's skew, grown as DB grows it.
 */
export function lineBoxes(mask: Uint8Array, width: number, height: number): LineBox[] {
  // 1: text; 2: the text's core (what DB's own threshold keeps), whose extent sizes the box.
  const found = regions(mask, width, height);
  const skew = pageSkew(found, width);
  const ux = Math.cos(skew);
  const uy = Math.sin(skew);
  const boxes: LineBox[] = [];
  for (const r of found) {
    let uMin = Number.POSITIVE_INFINITY;
    let uMax = Number.NEGATIVE_INFINITY;
    let vMin = Number.POSITIVE_INFINITY;
    let vMax = Number.NEGATIVE_INFINITY;
    const core = r.pixels.filter((p) => mask[p] === 2);
    for (const p of core.length ? core : r.pixels) {
      const x = (p % width) + 0.5;
      const y = Math.floor(p / width) + 0.5;
      const u = x * ux + y * uy;
      const v = -x * uy + y * ux;
      if (u < uMin) uMin = u;
      if (u > uMax) uMax = u;
      if (v < vMin) vMin = v;
      if (v > vMax) vMax = v;
    }
    const w = uMax - uMin + 1;
    const h = vMax - vMin + 1;
    if (Math.min(w, h) < MIN_SIDE) continue;
    const grow = (w * h * UNCLIP) / (2 * (w + h));
    const width2 = w + 2 * grow;
    const height2 = h + 2 * grow;
    if (Math.min(width2, height2) < MIN_SIDE + 2) continue;
    const u = (uMin + uMax) / 2;
    const v = (vMin + vMax) / 2;
    boxes.push({ cx: u * ux - v * uy, cy: u * uy + v * ux, width: width2, height: height2, ux, uy });
  }
  return boxes;
}

/** The box scaled by `scale` (map pixels to page pixels). */
export function scaleBox(b: LineBox, scale: number): LineBox {
  return { ...b, cx: b.cx * scale, cy: b.cy * scale, width: b.width * scale, height: b.height * scale };
}

/** A box's four corners, clockwise from top left, in page pixels. */
export function corners(b: LineBox): number[][] {
  const hw = b.width / 2;
  const hh = b.height / 2;
  return [
    [-hw, -hh],
    [hw, -hh],
    [hw, hh],
    [-hw, hh],
  ].map(([u, v]) => [Math.round(b.cx + u * b.ux - v * b.uy), Math.round(b.cy + u * b.uy + v * b.ux)]);
}

/** A line image for the recogniser: its pixels (RGB) and the same as grey. */
export interface LineImage {
  rgb: Uint8Array;
  grey: Uint8Array;
  width: number;
  height: number;
}

/**
 * The line in box `b` cut out of `page`, straightened and scaled to `height` pixels (its width in proportion), with
 * `pad` white columns on either side. A vertical box is read turned a quarter. Each output pixel averages the page's
 * pixels under it (sampled on a grid as fine as the page), so a line shrunk from a 300 dpi page keeps its strokes.
 */
export function cutLine(page: Rgb, b: LineBox, height: number, pad: number): LineImage {
  const vertical = b.height >= VERTICAL * b.width;
  // Along the text: (ax, ay) per output column; across it: (bx, by) per output row.
  let [along, across] = [b.width, b.height];
  let [ax, ay, bx, by] = [b.ux, b.uy, -b.uy, b.ux];
  if (vertical) {
    [along, across] = [b.height, b.width];
    [ax, ay, bx, by] = [-b.uy, b.ux, -b.ux, -b.uy];
  }
  const scale = across / height; // page pixels per output pixel
  const inner = Math.max(Math.round(height / 4), Math.round(along / scale));
  const width = inner + 2 * pad;
  const rgb = new Uint8Array(width * height * 3).fill(255);
  const grey = new Uint8Array(inner * height);
  const steps = Math.min(3, Math.max(1, Math.ceil(scale)));
  const x0 = b.cx - (ax * along) / 2 - (bx * across) / 2;
  const y0 = b.cy - (ay * along) / 2 - (by * across) / 2;
  const sum = [0, 0, 0];
  const { data, width: pw, height: ph } = page;
  for (let oy = 0; oy < height; oy++) {
    for (let ox = 0; ox < inner; ox++) {
      sum[0] = sum[1] = sum[2] = 0;
      for (let sy = 0; sy < steps; sy++) {
        const t = (oy + (sy + 0.5) / steps) * scale;
        for (let sx = 0; sx < steps; sx++) {
          const s = (ox + (sx + 0.5) / steps) * scale;
          // Bilinear sample at (x, y), the page's edge pixels repeated beyond it.
          const x = Math.min(pw - 1, Math.max(0, x0 + s * ax + t * bx - 0.5));
          const y = Math.min(ph - 1, Math.max(0, y0 + s * ay + t * by - 0.5));
          const xi = Math.min(pw - 2, Math.floor(x));
          const yi = Math.min(ph - 2, Math.floor(y));
          const fx = Math.min(1, x - xi);
          const fy = Math.min(1, y - yi);
          const i00 = (yi * pw + xi) * 3;
          const i10 = i00 + 3;
          const i01 = i00 + pw * 3;
          const i11 = i01 + 3;
          for (let c = 0; c < 3; c++) {
            const top = data[i00 + c] + (data[i10 + c] - data[i00 + c]) * fx;
            const bottom = data[i01 + c] + (data[i11 + c] - data[i01 + c]) * fx;
            sum[c] += top + (bottom - top) * fy;
          }
        }
      }
      const n = steps * steps;
      const o = (oy * width + ox + pad) * 3;
      rgb[o] = sum[0] / n + 0.5;
      rgb[o + 1] = sum[1] / n + 0.5;
      rgb[o + 2] = sum[2] / n + 0.5;
      grey[oy * inner + ox] = (sum[0] * 0.299 + sum[1] * 0.587 + sum[2] * 0.114) / n + 0.5;
    }
  }
  return { rgb, grey, width, height };
}
