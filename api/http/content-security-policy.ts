/**
 * The Content-Security-Policy of the public site's pages, one string for the front server and the
 * generated nginx.conf. Every page script is a file of the build (the build inlines none:
 * astro.config.mjs sets assetsInlineLimit to 0), so scripts need only 'self'; search runs
 * Pagefind's WebAssembly ('wasm-unsafe-eval' allows compiling it, not eval); the MIDI player
 * synthesizes in Web Audio. Audio and video of an asset may live on another https host, and a
 * presigned blob download redirects to the bucket. Nothing may frame the pages.
 * The desk (/admin/) sends its own stricter policy (api/desk/).
 */
export const PUBLIC_CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "media-src 'self' https:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** True for the answers the policy belongs on: HTML pages. */
export function isHtml(contentType: string): boolean {
  return contentType.startsWith('text/html');
}
