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
  };
}
