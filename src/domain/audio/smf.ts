/**
 * Standard MIDI Files as the renderer needs them (docs/audio.md, "Rendered from the score"):
 * read into events with absolute ticks, cut at a tick (a 30 s or 60 s cut that ends on a bar
 * line: what sounds at the cut is released there), repeated end to end (the loop is rendered
 * three times and its middle period kept), tick-to-seconds through the tempo map, and written
 * back. Pure and bounded: the parser walks each track's bytes once and refuses what is not a
 * Standard MIDI File.
 */

export interface SmfEvent {
  tick: number;
  /** The whole message: status byte included (running status is expanded), or FF type len data, or F0/F7 len data. */
  bytes: Uint8Array;
}

export interface Smf {
  format: number;
  /** Ticks per quarter note (SMPTE time division is refused). */
  division: number;
  tracks: SmfEvent[][];
}

export class SmfError extends Error {}

/** At most this many events in a file (a real score has a few tens of thousands). */
const MAX_EVENTS = 4_000_000;

function readVlq(b: Uint8Array, at: number): [number, number] {
  let value = 0;
  for (let i = 0; i < 4; i++) {
    if (at >= b.length) throw new SmfError('a variable-length number runs past the end');
    const byte = b[at++]!;
    value = (value << 7) | (byte & 0x7f);
    if ((byte & 0x80) === 0) return [value, at];
  }
  throw new SmfError('a variable-length number is longer than four bytes');
}

/** `value` as a MIDI variable-length quantity: 7 bits a byte, most significant first, the last byte without the top bit. */
export function vlq(value: number): number[] {
  const out = [value & 0x7f];
  let v = value >>> 7;
  while (v > 0) {
    out.unshift((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  return out;
}

const DATA_BYTES = (status: number) => ((status & 0xf0) === 0xc0 || (status & 0xf0) === 0xd0 ? 1 : 2);

export function parseSmf(bytes: Uint8Array): Smf {
  const text = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
  const u32 = (at: number) =>
    ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
  const u16 = (at: number) => (bytes[at]! << 8) | bytes[at + 1]!;
  if (bytes.length < 14 || text(0) !== 'MThd') throw new SmfError('not a Standard MIDI File (no MThd header)');
  const headerLength = u32(4);
  const format = u16(8);
  const trackCount = u16(10);
  const division = u16(12);
  if (division & 0x8000) throw new SmfError('SMPTE time division is not supported');
  if (division === 0) throw new SmfError('a time division of 0 ticks per quarter note');
  let at = 8 + headerLength;
  const tracks: SmfEvent[][] = [];
  let total = 0;
  for (let t = 0; t < trackCount && at + 8 <= bytes.length; t++) {
    const length = u32(at + 4);
    const isTrack = text(at) === 'MTrk';
    const start = at + 8;
    const end = Math.min(bytes.length, start + length);
    at = start + length;
    if (!isTrack) continue;
    const events: SmfEvent[] = [];
    let p = start;
    let tick = 0;
    let running = 0;
    while (p < end) {
      const [delta, q] = readVlq(bytes, p);
      p = q;
      tick += delta;
      if (p >= end) throw new SmfError('a track ends inside an event');
      let status = bytes[p]!;
      if (status === 0xff) {
        const [len, r] = readVlq(bytes, p + 2);
        events.push({ tick, bytes: bytes.slice(p, r + len) });
        p = r + len;
      } else if (status === 0xf0 || status === 0xf7) {
        const [len, r] = readVlq(bytes, p + 1);
        events.push({ tick, bytes: bytes.slice(p, r + len) });
        p = r + len;
        running = 0;
      } else {
        let data = p + 1;
        if (status < 0x80) {
          if (running === 0) throw new SmfError('running status without a status byte');
          status = running;
          data = p;
        } else running = status;
        const n = DATA_BYTES(status);
        const message = new Uint8Array(1 + n);
        message[0] = status;
        message.set(bytes.subarray(data, data + n), 1);
        events.push({ tick, bytes: message });
        p = data + n;
      }
      if (++total > MAX_EVENTS) throw new SmfError(`more than ${MAX_EVENTS} events`);
    }
    tracks.push(events);
  }
  return { format, division, tracks };
}

export function writeSmf(smf: Smf): Uint8Array {
  const chunks: number[] = [];
  const push32 = (v: number) => chunks.push((v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff);
  chunks.push(0x4d, 0x54, 0x68, 0x64);
  push32(6);
  chunks.push(0, smf.format, (smf.tracks.length >> 8) & 0xff, smf.tracks.length & 0xff);
  chunks.push((smf.division >> 8) & 0xff, smf.division & 0xff);
  for (const track of smf.tracks) {
    const body: number[] = [];
    let last = 0;
    for (const e of track) {
      body.push(...vlq(e.tick - last));
      for (const b of e.bytes) body.push(b);
      last = e.tick;
    }
    chunks.push(0x4d, 0x54, 0x72, 0x6b);
    push32(body.length);
    for (const b of body) chunks.push(b);
  }
  return Uint8Array.from(chunks);
}

const isEndOfTrack = (e: SmfEvent) => e.bytes[0] === 0xff && e.bytes[1] === 0x2f;
const isNoteOn = (e: SmfEvent) => (e.bytes[0]! & 0xf0) === 0x90 && e.bytes[2]! > 0;
const isNoteOff = (e: SmfEvent) => (e.bytes[0]! & 0xf0) === 0x80 || ((e.bytes[0]! & 0xf0) === 0x90 && e.bytes[2] === 0);
const endOfTrack = (tick: number): SmfEvent => ({ tick, bytes: Uint8Array.of(0xff, 0x2f, 0x00) });

/** Events sorted by tick, keeping the file's order within a tick. */
const byTick = (events: SmfEvent[]) =>
  events
    .map((e, i) => [e, i] as const)
    .sort((a, b) => a[0].tick - b[0].tick || a[1] - b[1])
    .map(([e]) => e);

/** The last tick of the file: its end-of-track events or its last event. */
export function lastTick(smf: Smf): number {
  let last = 0;
  for (const track of smf.tracks) for (const e of track) if (e.tick > last) last = e.tick;
  return last;
}

/**
 * The file cut at `tick`: nothing starts at or after it, and every note still sounding there is
 * released there (so the synthesizer's own release and reverb ring out: no fade is drawn).
 */
export function cutAt(smf: Smf, tick: number): Smf {
  const tracks = smf.tracks.map((track) => {
    const out: SmfEvent[] = [];
    const sounding = new Map<string, number>();
    for (const e of track) {
      if (isEndOfTrack(e)) continue;
      const key = `${e.bytes[0]! & 0x0f}:${e.bytes[1]}`;
      // From the cut on nothing is kept: what still sounds is released at the cut below.
      if (e.tick >= tick) continue;
      if (isNoteOn(e)) sounding.set(key, (sounding.get(key) ?? 0) + 1);
      else if (isNoteOff(e) && (sounding.get(key) ?? 0) > 0) sounding.set(key, sounding.get(key)! - 1);
      out.push(e);
    }
    for (const [key, count] of sounding) {
      const [channel, note] = key.split(':').map(Number) as [number, number];
      for (let i = 0; i < count; i++) out.push({ tick, bytes: Uint8Array.of(0x80 | channel, note, 0x40) });
    }
    out.push(endOfTrack(tick));
    return out;
  });
  return { ...smf, tracks };
}

/**
 * The file played `times` times end to end, each repetition `period` ticks after the one before
 * (its tempo, programs and controllers repeated with it). A note that sounds past the period
 * overlaps the next repetition, as a performer's would.
 */
export function repeated(smf: Smf, period: number, times: number): Smf {
  if (!(times >= 1 && times <= 16)) throw new RangeError('1 to 16 repetitions');
  const tracks = smf.tracks.map((track) => {
    const body = track.filter((e) => !isEndOfTrack(e) && e.tick < period);
    const tail = track.filter((e) => !isEndOfTrack(e) && e.tick >= period && isNoteOff(e));
    const out: SmfEvent[] = [];
    for (let k = 0; k < times; k++)
      for (const e of [...body, ...tail]) out.push({ tick: e.tick + k * period, bytes: e.bytes });
    const sorted = byTick(out);
    sorted.push(endOfTrack(Math.max(times * period, sorted.at(-1)?.tick ?? 0)));
    return sorted;
  });
  return { ...smf, tracks };
}

/** Seconds at `tick` through the file's tempo map (120 quarter notes a minute until the first tempo event). */
export function secondsAt(smf: Smf, tick: number): number {
  const tempos = byTick(
    smf.tracks.flat().filter((e) => e.bytes[0] === 0xff && e.bytes[1] === 0x51 && e.bytes.length >= 6),
  );
  let seconds = 0;
  let at = 0;
  let usPerQuarter = 500_000;
  for (const e of tempos) {
    if (e.tick >= tick) break;
    seconds += ((e.tick - at) * usPerQuarter) / smf.division / 1e6;
    at = e.tick;
    usPerQuarter = (e.bytes[3]! << 16) | (e.bytes[4]! << 8) | e.bytes[5]!;
  }
  return seconds + ((tick - at) * usPerQuarter) / smf.division / 1e6;
}

/** Every program (instrument) change of the file set to `program`, and one added at the start of each channel used. */
export function withProgram(smf: Smf, program: number): Smf {
  const tracks = smf.tracks.map((track) => {
    const channels = new Set<number>();
    const out = track.map((e) => {
      const status = e.bytes[0]!;
      if (status >= 0x80 && status < 0xf0 && (status & 0x0f) !== 9) channels.add(status & 0x0f);
      return (status & 0xf0) === 0xc0 && (status & 0x0f) !== 9
        ? { tick: e.tick, bytes: Uint8Array.of(status, program) }
        : e;
    });
    return [...[...channels].map((c) => ({ tick: 0, bytes: Uint8Array.of(0xc0 | c, program) })), ...out];
  });
  return { ...smf, tracks };
}
