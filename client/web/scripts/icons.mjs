// The board's icon, drawn here once as shapes and written both as SVG and as PNG at
// each size (the build calls icons()): two cards, a spade behind a heart, on the
// board's felt. The felt fills the square and the cards stay within its middle 80%,
// so one drawing serves as an ordinary icon and as a maskable one (a phone crops it
// to a circle or a rounded square). The PNGs are rasterised here, with no image
// library: each shape's coverage is measured on 5 sub-rows per pixel, exactly along
// each row, and the PNG (indexed: the few colours of the drawing and its edges) is
// deflated by node's zlib, so a build is byte-for-byte the same every time.
import { deflateSync } from "node:zlib";

const FELT = "#1d5e3b";
const FELT_DARK = "#0f3a23";
const PAPER = "#fdfdfb";
const INK = "#1b1b1b";
const RED = "#c0182b";
const SIZE = 512; // the drawing's units

/** A rounded rectangle centred on (cx, cy), turned by `deg`, as a polygon. */
function card(cx, cy, w, h, r, deg) {
  const points = [];
  const corners = [[w / 2 - r, h / 2 - r, 0], [-w / 2 + r, h / 2 - r, 90],
    [-w / 2 + r, -h / 2 + r, 180], [w / 2 - r, -h / 2 + r, 270]];
  for (const [x, y, start] of corners) {
    for (let i = 0; i <= 8; i++) {
      const a = ((start + (90 * i) / 8) * Math.PI) / 180;
      points.push([x + r * Math.cos(a), y + r * Math.sin(a)]);
    }
  }
  return turn(points, cx, cy, deg);
}

function turn(points, cx, cy, deg) {
  const a = (deg * Math.PI) / 180;
  const [c, s] = [Math.cos(a), Math.sin(a)];
  return points.map(([x, y]) => [cx + x * c - y * s, cy + x * s + y * c]);
}

/** The classic heart curve, `scale` units per curve unit, point down (flip: point up). */
function heart(scale, flip) {
  const points = [];
  for (let i = 0; i < 64; i++) {
    const t = (2 * Math.PI * i) / 64;
    const x = 16 * Math.sin(t) ** 3;
    const y = 13 * Math.cos(t) - 5 * Math.cos(2 * t) - 2 * Math.cos(3 * t) - Math.cos(4 * t);
    points.push([x * scale, (flip ? y : -y) * scale]);
  }
  return points;
}

/** The drawing: [colour, polygons] in painting order. */
function shapes() {
  const back = [-16, 212, 250];
  const front = [12, 300, 262];
  const [w, h, r] = [168, 236, 18];
  const spade = heart(2.4, true).map(([x, y]) => [x, y - 8]);
  const stem = [[0, 4], [20, 46], [-20, 46]];
  return [
    [FELT, [[[0, 0], [SIZE, 0], [SIZE, SIZE], [0, SIZE]]]],
    [FELT_DARK, [card(back[1] + 6, back[2] + 8, w, h, r, back[0])]],
    [PAPER, [card(back[1], back[2], w, h, r, back[0])]],
    [INK, [turn(spade, back[1] - 40, back[2] - 50, back[0]), turn(stem, back[1] - 40, back[2] - 50, back[0])]],
    [FELT_DARK, [card(front[1] + 6, front[2] + 8, w, h, r, front[0])]],
    [PAPER, [card(front[1], front[2], w, h, r, front[0])]],
    [RED, [turn(heart(3.3, false), front[1], front[2] + 6, front[0])]],
  ];
}

export function svg() {
  const paths = shapes().map(([colour, polygons]) => {
    const d = polygons.map((poly) => "M" + poly.map(([x, y]) => `${x.toFixed(1)} ${y.toFixed(1)}`).join("L") + "Z");
    return `<path fill="${colour}" d="${d.join("")}"/>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${SIZE} ${SIZE}">${paths.join("")}</svg>\n`;
}

const SUB = 5; // sub-rows per pixel

/** How much of each pixel of a `size`-pixel square the polygons cover (0 to 1). */
function coverage(polygons, size) {
  const k = size / SIZE;
  const cover = new Float64Array(size * size);
  for (const poly of polygons) {
    const pts = poly.map(([x, y]) => [x * k, y * k]);
    const own = new Float64Array(size * size);
    for (let row = 0; row < size * SUB; row++) {
      const y = (row + 0.5) / SUB;
      const xs = [];
      for (let i = 0; i < pts.length; i++) {
        const [x0, y0] = pts[i];
        const [x1, y1] = pts[(i + 1) % pts.length];
        if ((y0 <= y) !== (y1 <= y)) xs.push(x0 + ((y - y0) * (x1 - x0)) / (y1 - y0));
      }
      xs.sort((a, b) => a - b);
      const line = Math.floor(row / SUB) * size;
      for (let i = 0; i + 1 < xs.length; i += 2) {
        const a = Math.max(0, xs[i]);
        const b = Math.min(size, xs[i + 1]);
        for (let px = Math.floor(a); px < b; px++) {
          own[line + px] += (Math.min(b, px + 1) - Math.max(a, px)) / SUB;
        }
      }
    }
    for (let i = 0; i < cover.length; i++) cover[i] = Math.min(1, cover[i] + own[i]);
  }
  return cover;
}

const CRC = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function chunk(type, data) {
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  let c = 0xffffffff;
  for (const byte of body) c = CRC[(c ^ byte) & 0xff] ^ (c >>> 8);
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE((c ^ 0xffffffff) >>> 0, 8 + data.length);
  return out;
}

/** The icon as an indexed PNG of `size` pixels: each edge's coverage is kept to 16
 * steps, so the colours fit one palette (a third of the bytes of RGB). */
export function png(size) {
  const rgb = new Float64Array(size * size * 3);
  for (const [colour, polygons] of shapes()) {
    const c = [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16));
    const cover = coverage(polygons, size);
    for (let i = 0; i < cover.length; i++) {
      const a = Math.round(cover[i] * 16) / 16;
      for (let j = 0; j < 3; j++) rgb[i * 3 + j] = rgb[i * 3 + j] * (1 - a) + c[j] * a;
    }
  }
  const palette = new Map();
  const raw = Buffer.alloc(size * (size + 1)); // each row: filter 0, then the pixels' indices
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const i = (y * size + x) * 3;
      const key = [0, 1, 2].map((j) => Math.round(rgb[i + j])).join(",");
      if (!palette.has(key)) palette.set(key, palette.size);
      raw[y * (size + 1) + 1 + x] = palette.get(key);
    }
  }
  if (palette.size > 256) throw new Error(`the icon has ${palette.size} colours: more than a palette holds`);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 3, 0, 0, 0], 8); // 8 bits, indexed colour, deflate, no filter choice, no interlace
  const colours = Buffer.from([...palette.keys()].flatMap((key) => key.split(",").map(Number)));
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", header),
    chunk("PLTE", colours), chunk("IDAT", deflateSync(raw, { level: 9 })), chunk("IEND", Buffer.alloc(0))]);
}
