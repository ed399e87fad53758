/**
 * The channel count of an MPEG audio stream from its first frame header (pure). The WASM decoder
 * always hands out two channels, copying a mono stream into both; measured that way a mono file
 * would read 3 LU too loud (BS.1770 sums channels), so the measurer keeps only the first channel
 * of a stream whose header says mono. An ID3v2 tag in front is skipped; the scan is bounded.
 */
const SCAN_BYTES = 256 * 1024;

export function mpegChannels(bytes: Uint8Array): 1 | 2 | null {
  let at = 0;
  if (bytes.length >= 10 && bytes[0] === 0x49 && bytes[1] === 0x44 && bytes[2] === 0x33) {
    const size =
      ((bytes[6]! & 0x7f) << 21) | ((bytes[7]! & 0x7f) << 14) | ((bytes[8]! & 0x7f) << 7) | (bytes[9]! & 0x7f);
    at = 10 + size + (bytes[5]! & 0x10 ? 10 : 0);
  }
  const end = Math.min(bytes.length - 4, at + SCAN_BYTES);
  for (let i = at; i < end; i++) {
    if (bytes[i] !== 0xff || (bytes[i + 1]! & 0xe0) !== 0xe0) continue;
    const version = (bytes[i + 1]! >> 3) & 3;
    const layer = (bytes[i + 1]! >> 1) & 3;
    const bitrate = bytes[i + 2]! >> 4;
    const rate = (bytes[i + 2]! >> 2) & 3;
    if (version === 1 || layer === 0 || bitrate === 0 || bitrate === 15 || rate === 3) continue;
    return bytes[i + 3]! >> 6 === 3 ? 1 : 2;
  }
  return null;
}
