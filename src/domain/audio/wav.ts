/**
 * RIFF/WAVE reader (pure): the `fmt ` chunk (PCM 8/16/24/32-bit integer, 32/64-bit float,
 * WAVE_FORMAT_EXTENSIBLE with either) and the `data` chunk, decoded in chunks of frames so a long
 * file never becomes one big Float32Array per channel. Chunk walking is bounded by the buffer.
 */

export interface WavFormat {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  float: boolean;
  /** Byte offset and length of the sample data. */
  dataOffset: number;
  dataLength: number;
  frames: number;
}

export class WavError extends Error {}

const PCM = 1;
const FLOAT = 3;
const EXTENSIBLE = 0xfffe;

export function readWavFormat(bytes: Uint8Array): WavFormat {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number) => String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!);
  if (bytes.length < 12 || tag(0) !== 'RIFF' || tag(8) !== 'WAVE') throw new WavError('not a RIFF/WAVE file');
  let fmt: Omit<WavFormat, 'dataOffset' | 'dataLength' | 'frames'> | null = null;
  let at = 12;
  while (at + 8 <= bytes.length) {
    const id = tag(at);
    const size = view.getUint32(at + 4, true);
    const body = at + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > bytes.length) throw new WavError('the fmt chunk is too short');
      let code = view.getUint16(body, true);
      const channels = view.getUint16(body + 2, true);
      const sampleRate = view.getUint32(body + 4, true);
      const bitsPerSample = view.getUint16(body + 14, true);
      if (code === EXTENSIBLE && size >= 40 && body + 26 <= bytes.length) code = view.getUint16(body + 24, true);
      if (code !== PCM && code !== FLOAT) throw new WavError(`sample format ${code} is not PCM or IEEE float`);
      const float = code === FLOAT;
      if (float ? bitsPerSample !== 32 && bitsPerSample !== 64 : ![8, 16, 24, 32].includes(bitsPerSample))
        throw new WavError(`${bitsPerSample}-bit ${float ? 'float' : 'integer'} samples are not supported`);
      if (channels < 1) throw new WavError('no channels');
      if (sampleRate < 1) throw new WavError('no sample rate');
      fmt = { sampleRate, channels, bitsPerSample, float };
    } else if (id === 'data') {
      if (!fmt) throw new WavError('the data chunk comes before the fmt chunk');
      const frameBytes = (fmt.bitsPerSample / 8) * fmt.channels;
      // A streamed WAV may carry size 0 or 0xFFFFFFFF: then the data runs to the end of the file.
      const length = Math.min(size === 0 || size === 0xffffffff ? bytes.length - body : size, bytes.length - body);
      return { ...fmt, dataOffset: body, dataLength: length, frames: Math.floor(length / frameBytes) };
    }
    at = body + size + (size % 2);
  }
  throw new WavError(fmt ? 'no data chunk' : 'no fmt chunk');
}

/** Frames [from, from + count) of the data as one Float32Array per channel, in [-1, 1]. */
export function wavFrames(bytes: Uint8Array, f: WavFormat, from: number, count: number): Float32Array[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Math.max(0, Math.min(count, f.frames - from));
  const out = Array.from({ length: f.channels }, () => new Float32Array(n));
  const width = f.bitsPerSample / 8;
  let at = f.dataOffset + from * width * f.channels;
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < f.channels; c++) {
      let v: number;
      if (f.float) v = width === 4 ? view.getFloat32(at, true) : view.getFloat64(at, true);
      else if (width === 1) v = (bytes[at]! - 128) / 128;
      else if (width === 2) v = view.getInt16(at, true) / 32768;
      else if (width === 3) v = (((bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16)) << 8) >> 8) / 8388608;
      else v = view.getInt32(at, true) / 2147483648;
      out[c]![i] = v;
      at += width;
    }
  }
  return out;
}
