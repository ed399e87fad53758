/**
 * The text checks of a MusicXML score before Verovio loads it (the review's technical checks):
 * a score root, the root's end tag at the end (a cut-off file), well-formed markup (Verovio reads
 * broken XML leniently), and the counts the review records (measures, parts, notes). Pure; it
 * runs in an engraving worker (src/lib/site/engrave-worker.ts) beside Verovio's load, because on a
 * long score (a 96-page quartet is 11 MB of XML, about 600,000 tags) it takes about a second.
 */

export type MusicXmlScan =
  | { ok: true; measures: number; parts: number; notes: number }
  | { ok: false; reason: string; measurements: Record<string, number> };

export function scanMusicXml(xml: string): MusicXmlScan {
  const root = /<score-(partwise|timewise)[\s>]/.exec(xml)?.[1];
  if (!root)
    return { ok: false, reason: 'Not MusicXML: no score-partwise or score-timewise element', measurements: {} };
  // Verovio engraves whatever it could read of a cut-off file; a missing root end tag betrays one.
  if (!new RegExp(`</score-${root}>\\s*$`).test(xml))
    return {
      ok: false,
      reason: `The MusicXML file is incomplete: it does not end with </score-${root}>`,
      measurements: {},
    };
  const subset = internalSubset(xml);
  if (subset) return { ok: false, reason: subset, measurements: {} };
  const malformed = wellFormednessError(xml);
  if (malformed)
    return { ok: false, reason: `The MusicXML file is not well-formed XML: ${malformed}`, measurements: {} };
  const measures = countMeasures(xml);
  const parts = (xml.match(/<score-part[\s>]/g) ?? []).length;
  const notes = (xml.match(/<note[\s>]/g) ?? []).length;
  if (notes === 0)
    return { ok: false, reason: 'The MusicXML file has no notes', measurements: { measures, parts, notes } };
  return { ok: true, measures, parts, notes };
}

/**
 * A DOCTYPE that declares entities of its own (an internal subset, `<!DOCTYPE x [ ... ]>`) is
 * refused by name: MusicXML needs none, and entity declarations are how a file expands without
 * bound (the billion laughs) or names a local file (XXE). Nothing here or in Verovio expands them;
 * refusing them says so, instead of calling the first `<!ENTITY` a malformed tag.
 */
function internalSubset(xml: string): string | null {
  const at = xml.indexOf('<!DOCTYPE');
  if (at === -1) return null;
  // The subset's "[" comes before the declaration's first ">" (a public identifier has neither).
  const open = xml.indexOf('[', at);
  const close = xml.indexOf('>', at);
  if (open === -1 || (close !== -1 && close < open)) return null;
  const line = xml.slice(0, at).split('\n').length;
  return `The MusicXML file declares its own entities (a DOCTYPE with an internal subset, on line ${line}); entity declarations are not read (they can expand without bound or name local files), and MusicXML needs none: remove the subset, keeping at most <!DOCTYPE score-partwise PUBLIC ...>`;
}

const TAG = /<(\/?)([A-Za-z_:][\w:.-]*)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/y;

/**
 * Verovio reads broken XML leniently (an unclosed element or a stray "<" still engraves), so the
 * markup is checked first: every tag well-formed, every element closed in order. Returns the first
 * problem with its line, or null. One pass over the text: bounded by its length.
 */
function wellFormednessError(xml: string): string | null {
  const stack: string[] = [];
  const line = (at: number) => xml.slice(0, at).split('\n').length;
  let i = xml.indexOf('<');
  while (i !== -1) {
    if (xml.startsWith('<!--', i)) i = end(xml, '-->', i);
    else if (xml.startsWith('<![CDATA[', i)) i = end(xml, ']]>', i);
    else if (xml.startsWith('<?', i)) i = end(xml, '?>', i);
    else if (xml.startsWith('<!DOCTYPE', i)) i = end(xml, '>', i);
    else {
      TAG.lastIndex = i;
      const m = TAG.exec(xml);
      if (!m) return `malformed tag on line ${line(i)}`;
      const [, closing, name, , selfClosing] = m;
      if (closing) {
        const open = stack.pop();
        if (open !== name) return `</${name}> on line ${line(i)} closes ${open ? `<${open}>` : 'nothing'}`;
      } else if (!selfClosing) stack.push(name!);
      i = TAG.lastIndex;
    }
    if (i === -1) return 'unterminated comment, CDATA section or declaration';
    i = xml.indexOf('<', i);
  }
  return stack.length > 0 ? `<${stack[stack.length - 1]}> is never closed` : null;
}

function end(xml: string, marker: string, from: number): number {
  const at = xml.indexOf(marker, from);
  return at === -1 ? -1 : at + marker.length;
}

/** Measures of the score: those of the first part (partwise), or the top-level ones (timewise). */
function countMeasures(xml: string): number {
  const firstPart = /<part[\s>][\s\S]*?<\/part>/.exec(xml);
  return ((firstPart ? firstPart[0] : xml).match(/<measure[\s>]/g) ?? []).length;
}
