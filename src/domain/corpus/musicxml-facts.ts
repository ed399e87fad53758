/**
 * The bibliographic facts a MusicXML file states about itself (work title and number, movement
 * title and number, creators by type, rights and source line), read from its header. Pure; only
 * the text before the first <part> is looked at, so a 20 MB quartet costs no more than a song.
 */

export interface MusicXmlFacts {
  workTitle: string | null;
  workNumber: string | null;
  movementTitle: string | null;
  movementNumber: string | null;
  composer: string | null;
  lyricist: string | null;
  rights: string | null;
  source: string | null;
  /** The arranger credit (OpenScore scores put "Transcribed from the IMSLP file(s) at <scan>" there). */
  arranger: string | null;
  /** The parts' names as the part list gives them ("Violin I", "Voice"), at most 40. */
  partNames: string[];
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(text: string): string {
  return text
    .replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => ENTITIES[e] ?? '')
    .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#([0-9]+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/\s+/g, ' ')
    .trim()
    .normalize('NFC');
}

function element(head: string, name: string, attrs = ''): string | null {
  const m = new RegExp(`<${name}${attrs}[^>]*>([^<]{0,1000})</${name}>`).exec(head);
  const v = m ? decode(m[1]!) : '';
  return v === '' ? null : v;
}

export function musicXmlFacts(xml: string): MusicXmlFacts {
  const end = xml.search(/<part[\s>]/);
  const head = xml.slice(0, end >= 0 ? Math.min(end, 200_000) : 200_000);
  return {
    workTitle: element(head, 'work-title'),
    workNumber: element(head, 'work-number'),
    movementTitle: element(head, 'movement-title'),
    movementNumber: element(head, 'movement-number'),
    composer: element(head, 'creator', '\\s+type="composer"'),
    lyricist: element(head, 'creator', '\\s+type="(?:lyricist|poet)"'),
    rights: element(head, 'rights'),
    source: element(head, 'source'),
    arranger: element(head, 'creator', '\\s+type="arranger"'),
    partNames: [...head.matchAll(/<part-name\b[^>]*>([^<]{0,200})<\/part-name>/g)]
      .map((m) => decode(m[1]!))
      .filter((n) => n !== '')
      .slice(0, 40),
  };
}

const ROMAN: Record<string, number> = { i: 1, v: 5, x: 10, l: 50, c: 100 };

/**
 * A movement number as files write it ("2", "II", "iv.", "No. 3") -> 2, 4, 3; null when it is no
 * number (or above 999).
 */
export function movementNumber(text: string | null | undefined): number | null {
  const t = (text ?? '')
    .trim()
    .toLowerCase()
    .replace(/^no\.?\s*/, '')
    .replace(/[.)]$/, '');
  if (/^[0-9]{1,3}$/.test(t)) return Number(t) >= 1 ? Number(t) : null;
  if (!/^[ivxlc]{1,8}$/.test(t)) return null;
  let total = 0;
  for (let i = 0; i < t.length; i++) {
    const v = ROMAN[t[i]!]!;
    const next = ROMAN[t[i + 1] ?? ''] ?? 0;
    total += v < next ? -v : v;
  }
  return total >= 1 && total <= 999 ? total : null;
}
