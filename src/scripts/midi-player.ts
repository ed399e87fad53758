/// <reference lib="dom" />
/**
 * A deliberately tiny MIDI player for the score previews. Browsers cannot play MIDI files, so
 * this reads the Standard MIDI File Verovio made at build time and plays its notes with plain
 * Web Audio oscillators (one soft triangle voice per note). It is a sketch of the music to check
 * notes and rhythm, not a rendering: the archive's MP3 arrangements are the real recordings.
 * The file is fetched only when the reader presses Play.
 */

interface Note {
  start: number;
  end: number;
  key: number;
  velocity: number;
}

/** Read a variable-length quantity at `pos`; returns [value, next position]. */
function readVarLen(b: Uint8Array, pos: number): [number, number] {
  let value = 0;
  for (let i = 0; i < 4; i++) {
    const byte = b[pos++] ?? 0;
    value = (value << 7) | (byte & 0x7f);
    if (!(byte & 0x80)) break;
  }
  return [value, pos];
}

/** Notes in seconds from a format 0 or 1 Standard MIDI File (tempo changes honored, drums skipped). */
export function parseMidi(buffer: ArrayBuffer): Note[] {
  const b = new Uint8Array(buffer);
  const view = new DataView(buffer);
  if (String.fromCharCode(...b.subarray(0, 4)) !== 'MThd') throw new Error('not a MIDI file');
  const tracks = view.getUint16(10);
  const division = view.getUint16(12);
  if (division & 0x8000) throw new Error('SMPTE time is not supported');
  type Ev = { tick: number; kind: 'on' | 'off' | 'tempo'; key: number; channel: number; value: number };
  const events: Ev[] = [];
  let pos = 8 + view.getUint32(4);
  for (let t = 0; t < tracks && pos + 8 <= b.length; t++) {
    const length = view.getUint32(pos + 4);
    let p = pos + 8;
    const end = Math.min(p + length, b.length);
    pos = end;
    let tick = 0;
    let status = 0;
    while (p < end) {
      let delta: number;
      [delta, p] = readVarLen(b, p);
      tick += delta;
      let s = b[p]!;
      if (s & 0x80) p++;
      else s = status; // running status
      if (s === 0xff) {
        const type = b[p++]!;
        let len: number;
        [len, p] = readVarLen(b, p);
        if (type === 0x51 && len === 3)
          events.push({ tick, kind: 'tempo', key: 0, channel: 0, value: (b[p]! << 16) | (b[p + 1]! << 8) | b[p + 2]! });
        p += len;
      } else if (s === 0xf0 || s === 0xf7) {
        let len: number;
        [len, p] = readVarLen(b, p);
        p += len;
      } else {
        status = s;
        const type = s & 0xf0;
        const channel = s & 0x0f;
        const d1 = b[p]!;
        const d2 = b[p + 1] ?? 0;
        p += type === 0xc0 || type === 0xd0 ? 1 : 2;
        if (type === 0x90 && d2 > 0) events.push({ tick, kind: 'on', key: d1, channel, value: d2 });
        else if (type === 0x80 || type === 0x90) events.push({ tick, kind: 'off', key: d1, channel, value: 0 });
      }
    }
  }
  events.sort((x, y) => x.tick - y.tick || (x.kind === 'tempo' ? -1 : 0) - (y.kind === 'tempo' ? -1 : 0));
  const notes: Note[] = [];
  const open = new Map<string, Note[]>();
  let tempo = 500_000; // microseconds per quarter note until a tempo event says otherwise
  let lastTick = 0;
  let seconds = 0;
  for (const e of events) {
    seconds += ((e.tick - lastTick) * tempo) / division / 1_000_000;
    lastTick = e.tick;
    if (e.kind === 'tempo') tempo = e.value;
    else if (e.channel === 9)
      continue; // percussion: no pitch to play
    else if (e.kind === 'on') {
      const n = { start: seconds, end: seconds, key: e.key, velocity: e.value / 127 };
      notes.push(n);
      open.set(`${e.channel}:${e.key}`, [...(open.get(`${e.channel}:${e.key}`) ?? []), n]);
    } else {
      const n = open.get(`${e.channel}:${e.key}`)?.shift();
      if (n) n.end = seconds;
    }
  }
  for (const n of notes) if (n.end <= n.start) n.end = n.start + 0.5;
  return notes;
}

function play(notes: Note[], onEnd: () => void): () => void {
  const ctx = new AudioContext();
  const master = ctx.createGain();
  master.gain.value = 0.18;
  master.connect(ctx.destination);
  const t0 = ctx.currentTime + 0.1;
  let last = 0;
  for (const n of notes) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = 'triangle';
    osc.frequency.value = 440 * 2 ** ((n.key - 69) / 12);
    const start = t0 + n.start;
    const end = t0 + Math.max(n.end, n.start + 0.05);
    gain.gain.setValueAtTime(0, start);
    gain.gain.linearRampToValueAtTime(0.3 + 0.5 * n.velocity, start + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.05 + 0.2 * n.velocity, end);
    gain.gain.linearRampToValueAtTime(0, end + 0.08);
    osc.connect(gain).connect(master);
    osc.start(start);
    osc.stop(end + 0.1);
    last = Math.max(last, end + 0.1);
  }
  const timer = setTimeout(() => stop(), (last - ctx.currentTime + 0.2) * 1000);
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearTimeout(timer);
    void ctx.close();
    onEnd();
  };
  return stop;
}

for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-midi]')) {
  let stop: (() => void) | null = null;
  const idle = () => {
    stop = null;
    button.textContent = 'Play';
    button.setAttribute('aria-pressed', 'false');
  };
  button.hidden = false;
  button.setAttribute('aria-pressed', 'false');
  button.addEventListener('click', async () => {
    if (stop) return stop();
    button.disabled = true;
    try {
      const res = await fetch(button.dataset.midi!);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const notes = parseMidi(await res.arrayBuffer());
      stop = play(notes, idle);
      button.textContent = 'Stop';
      button.setAttribute('aria-pressed', 'true');
    } catch (err) {
      button.textContent = `Cannot play (${(err as Error).message})`;
    } finally {
      button.disabled = false;
    }
  });
}
