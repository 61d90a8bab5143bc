#!/usr/bin/env node
// Draws media/icon.png, the 128x128 icon of the Marketplace and the Extensions view: layers of memory
// (three stacked bars, the newest brightest) on a rounded square. Plain Node (zlib), so no image tool
// is needed; run it again after changing the shapes: `node scripts/drawIcon.mjs`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const SIZE = 128;
const SAMPLES = 4; // 4x4 samples a pixel: smooth edges

/** Signed distance from (x, y) to a rounded rectangle centred at (cx, cy). */
function roundedRect(x, y, cx, cy, halfW, halfH, r) {
  const qx = Math.abs(x - cx) - halfW + r;
  const qy = Math.abs(y - cy) - halfH + r;
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
}

const mix = (a, b, t) => a.map((v, i) => v + (b[i] - v) * t);
const TOP = [94, 60, 196];
const BOTTOM = [32, 118, 214];
const LAYERS = [
  { cy: 44, halfW: 34, alpha: 1 },
  { cy: 66, halfW: 40, alpha: 0.72 },
  { cy: 88, halfW: 46, alpha: 0.45 },
];

function colourAt(x, y) {
  if (roundedRect(x, y, 64, 64, 62, 62, 26) > 0) return [0, 0, 0, 0];
  let rgb = mix(TOP, BOTTOM, y / SIZE);
  for (const layer of LAYERS) {
    if (roundedRect(x, y, 64, layer.cy, layer.halfW, 8, 8) <= 0) rgb = mix(rgb, [255, 255, 255], layer.alpha);
  }
  return [...rgb, 255];
}

function pixels() {
  const rows = [];
  for (let y = 0; y < SIZE; y++) {
    const row = Buffer.alloc(1 + SIZE * 4); // filter byte 0, then RGBA
    for (let x = 0; x < SIZE; x++) {
      const sum = [0, 0, 0, 0];
      for (let sy = 0; sy < SAMPLES; sy++) {
        for (let sx = 0; sx < SAMPLES; sx++) {
          const c = colourAt(x + (sx + 0.5) / SAMPLES, y + (sy + 0.5) / SAMPLES);
          // Premultiplied, so transparent samples do not darken the edge.
          for (let i = 0; i < 3; i++) sum[i] += c[i] * c[3];
          sum[3] += c[3];
        }
      }
      const a = sum[3] / (SAMPLES * SAMPLES);
      for (let i = 0; i < 3; i++) row[1 + x * 4 + i] = sum[3] ? Math.round(sum[i] / sum[3]) : 0;
      row[1 + x * 4 + 3] = Math.round(a);
    }
    rows.push(row);
  }
  return Buffer.concat(rows);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

const header = Buffer.alloc(13);
header.writeUInt32BE(SIZE, 0);
header.writeUInt32BE(SIZE, 4);
header[8] = 8; // bits per channel
header[9] = 6; // RGBA
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', header),
  chunk('IDAT', zlib.deflateSync(pixels(), { level: 9 })),
  chunk('IEND', Buffer.alloc(0)),
]);
const out = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'media', 'icon.png');
fs.writeFileSync(out, png);
console.log(`wrote ${out} (${png.length} bytes)`);
