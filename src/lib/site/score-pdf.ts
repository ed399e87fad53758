/**
 * A printable PDF of one engraved score: one A4 page per Verovio SVG page, drawn as vectors
 * (PDFKit with svg-to-pdfkit), so the PDF has exactly as many pages as the SVG pages shown on the
 * site and prints as sharply as the engraving. Text (titles, tempo words, lyrics) uses the PDF
 * standard Times faces, which Verovio's "Times, serif" asks for anyway.
 */
import PDFDocument from 'pdfkit';
import SVGtoPDF from 'svg-to-pdfkit';

/** A4 in PDF points, and the printable margin. */
const A4 = { width: 595.28, height: 841.89 } as const;
const MARGIN = 36;

export interface PdfMeta {
  title: string;
  author: string;
  subject: string;
  keywords?: string;
  /** Fixed creation time (the build's), so one build's PDF bytes do not depend on the clock. */
  createdAt: Date;
}

function timesFace(_family: string, bold: boolean, italic: boolean): string {
  if (bold && italic) return 'Times-BoldItalic';
  if (bold) return 'Times-Bold';
  if (italic) return 'Times-Italic';
  return 'Times-Roman';
}

/** Render SVG pages (in order) to a PDF; resolves with the bytes and any converter warnings. */
export function svgPagesToPdf(svgs: readonly string[], meta: PdfMeta): Promise<{ bytes: Buffer; warnings: string[] }> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({
      autoFirstPage: false,
      compress: true,
      pdfVersion: '1.7',
      lang: 'en-US',
      // Viewers show the document's title (the work's), not the file name.
      displayTitle: true,
      info: {
        Title: meta.title,
        Author: meta.author,
        Subject: meta.subject,
        ...(meta.keywords ? { Keywords: meta.keywords } : {}),
        Creator: 'Public-Domain Music Archive (Verovio, PDFKit)',
        CreationDate: meta.createdAt,
        ModDate: meta.createdAt,
      },
    });
    const chunks: Buffer[] = [];
    const warnings: string[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('error', reject);
    doc.on('end', () => resolve({ bytes: Buffer.concat(chunks), warnings }));
    try {
      for (const svg of svgs) {
        doc.addPage({ size: [A4.width, A4.height], margin: MARGIN });
        SVGtoPDF(doc, svg, MARGIN, MARGIN, {
          width: A4.width - 2 * MARGIN,
          height: A4.height - 2 * MARGIN,
          preserveAspectRatio: 'xMidYMin meet',
          fontCallback: timesFace,
          warningCallback: (w) => warnings.push(w),
        });
      }
      doc.end();
    } catch (err) {
      reject(err as Error);
    }
  });
}
