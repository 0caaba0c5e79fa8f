/**
 * The invite link as a QR code, drawn in the page (a canvas: nothing is fetched,
 * so the link and its secret never leave the page). The encoding is
 * qrcode-generator's; this only paints its modules with a quiet zone.
 */

import qrcode from "qrcode-generator";

/** Light modules around the code: scanners need at least four. */
export const QUIET_ZONE = 4;
/** Canvas pixels per module (the page scales the canvas down to fit). */
const CELL = 6;

/** The dark modules of `text`'s QR code (byte mode, error correction M), row by row. */
export function qrModules(text: string): boolean[][] {
  const code = qrcode(0, "M");
  code.addData(text, "Byte");
  code.make();
  const size = code.getModuleCount();
  return Array.from({ length: size }, (_, r) => Array.from({ length: size }, (_, c) => code.isDark(r, c)));
}

/** A canvas showing `text` as a QR code, dark on white. */
export function qrCanvas(text: string, label: string): HTMLCanvasElement {
  const modules = qrModules(text);
  const side = (modules.length + 2 * QUIET_ZONE) * CELL;
  const canvas = document.createElement("canvas");
  canvas.width = side;
  canvas.height = side;
  canvas.setAttribute("role", "img");
  canvas.setAttribute("aria-label", label);
  const context = canvas.getContext("2d");
  if (context === null) return canvas; // no 2D canvas here: the link and its Copy button remain
  context.fillStyle = "#fff";
  context.fillRect(0, 0, side, side);
  context.fillStyle = "#000";
  modules.forEach((row, r) => row.forEach((dark, c) => {
    if (dark) context.fillRect((c + QUIET_ZONE) * CELL, (r + QUIET_ZONE) * CELL, CELL, CELL);
  }));
  return canvas;
}
