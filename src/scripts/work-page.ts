/**
 * The work page's one script: the correction form, the score's MIDI player and the reader sign-in strip. Bundled as one
 * file (larger than Astro's inline limit), so browsers fetch it once and cache it for every work
 * page instead of reading it again inside each page's HTML.
 */
import './correction-form.ts';
import './midi-player.ts';
import './reader-session.ts';
