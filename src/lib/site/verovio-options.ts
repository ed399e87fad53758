/**
 * Verovio's options for the wide pages and the MIDI rendition, shared by engraving
 * (src/lib/site/engrave.ts) and audio rendering (src/lib/site/audio-render.ts); its own file so
 * that neither imports the other.
 */
/** Engraving width in Verovio units (1/10 mm at scale 100); with scale 40 a page is 840 px wide. */
export const VEROVIO_OPTIONS = {
  pageWidth: 2100,
  pageHeight: 2970,
  scale: 40,
  adjustPageHeight: true,
  // Ids derived from the input, so the same file renders to the same bytes in every build.
  xmlIdChecksum: true,
};
