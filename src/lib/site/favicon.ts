/**
 * The site's icon, drawn in code so the repository holds no binary: a white eighth note on the
 * link blue (#0b5cad). `/favicon.svg` for browsers that take the page's <link rel="icon">, and
 * `/favicon.ico` (32×32, 32-bit BMP inside an ICO) for every client that asks the old address.
 */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#0b5cad"/><ellipse cx="12.5" cy="22.5" rx="5.5" ry="4" transform="rotate(-20 12.5 22.5)" fill="#fff"/><rect x="16.5" y="5" width="2" height="17.5" fill="#fff"/><path d="M18.5 5c1 4 6 5 5.5 11-1-3.5-3-4.5-5.5-5z" fill="#fff"/></svg>\n`;

const SIZE = 32;

/** Is pixel (x, y) of the 32×32 icon part of the note (white), the square (blue) or outside the rounded corner? */
function pixel(x: number, y: number): 'note' | 'square' | 'outside' {
  const cx = x + 0.5;
  const cy = y + 0.5;
  const r = 6;
  const corner = (px: number, py: number) => (cx - px) ** 2 + (cy - py) ** 2 > r * r;
  if ((cx < r && cy < r && corner(r, r)) || (cx > SIZE - r && cy < r && corner(SIZE - r, r))) return 'outside';
  if (
    (cx < r && cy > SIZE - r && corner(r, SIZE - r)) ||
    (cx > SIZE - r && cy > SIZE - r && corner(SIZE - r, SIZE - r))
  )
    return 'outside';
  // Notehead: an ellipse tilted by -20 degrees.
  const a = (-20 * Math.PI) / 180;
  const dx = cx - 12.5;
  const dy = cy - 22.5;
  const u = dx * Math.cos(a) + dy * Math.sin(a);
  const v = -dx * Math.sin(a) + dy * Math.cos(a);
  if ((u / 5.5) ** 2 + (v / 4) ** 2 <= 1) return 'note';
  if (cx >= 16.5 && cx <= 18.5 && cy >= 5 && cy <= 22.5) return 'note';
  // Flag: a band curving down from the top of the stem.
  if (cx > 18.5 && cx < 24 && cy >= 5 && cy <= 16) {
    const t = (cx - 18.5) / 5.5;
    const top = 5 + t * 7;
    if (cy >= top && cy <= top + 3.5 - t) return 'note';
  }
  return 'square';
}

export function faviconIco(): Uint8Array<ArrayBuffer> {
  const pixelBytes = SIZE * SIZE * 4;
  const maskBytes = SIZE * (SIZE / 8); // 1 bit per pixel, rows padded to 4 bytes (32 px = 4 bytes)
  const imageBytes = 40 + pixelBytes + maskBytes;
  const out = Buffer.alloc(6 + 16 + imageBytes);
  // ICONDIR
  out.writeUInt16LE(0, 0);
  out.writeUInt16LE(1, 2); // type: icon
  out.writeUInt16LE(1, 4); // one image
  // ICONDIRENTRY
  out.writeUInt8(SIZE, 6);
  out.writeUInt8(SIZE, 7);
  out.writeUInt8(0, 8); // no palette
  out.writeUInt8(0, 9);
  out.writeUInt16LE(1, 10); // planes
  out.writeUInt16LE(32, 12); // bits per pixel
  out.writeUInt32LE(imageBytes, 14);
  out.writeUInt32LE(22, 18); // offset of the image
  // BITMAPINFOHEADER (height counts the colour rows and the mask rows)
  let o = 22;
  out.writeUInt32LE(40, o);
  out.writeInt32LE(SIZE, o + 4);
  out.writeInt32LE(SIZE * 2, o + 8);
  out.writeUInt16LE(1, o + 12);
  out.writeUInt16LE(32, o + 14);
  out.writeUInt32LE(0, o + 16); // BI_RGB
  out.writeUInt32LE(pixelBytes + maskBytes, o + 20);
  o += 40;
  // Pixels, bottom row first, as B G R A.
  for (let y = SIZE - 1; y >= 0; y--) {
    for (let x = 0; x < SIZE; x++) {
      const p = pixel(x, y);
      const [b, g, r, alpha] =
        p === 'note' ? [255, 255, 255, 255] : p === 'square' ? [0xad, 0x5c, 0x0b, 255] : [0, 0, 0, 0];
      out.writeUInt8(b, o++);
      out.writeUInt8(g, o++);
      out.writeUInt8(r, o++);
      out.writeUInt8(alpha, o++);
    }
  }
  // The AND mask: all zero (the alpha channel decides transparency).
  return Uint8Array.from(out);
}
