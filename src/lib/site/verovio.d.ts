/**
 * Types for the parts of Verovio's JavaScript toolkit the build uses (the package ships none).
 * Checked against node_modules/verovio/dist/verovio.mjs 6.3.
 */
declare module 'verovio/wasm' {
  /** The Emscripten module; pass it to `new VerovioToolkit(module)`. */
  export interface VerovioModule {
    cwrap(name: string, returnType: string | null, argTypes: string[]): (...args: unknown[]) => unknown;
  }
  export default function createVerovioModule(): Promise<VerovioModule>;
}

declare module 'verovio/esm' {
  import type { VerovioModule } from 'verovio/wasm';
  export const LOG_OFF: number;
  export const LOG_ERROR: number;
  export const LOG_WARNING: number;
  export function enableLog(level: number, module: VerovioModule): void;
  export function enableLogToBuffer(value: number, module: VerovioModule): void;
  export class VerovioToolkit {
    constructor(module: VerovioModule);
    setOptions(options: Record<string, unknown>): void;
    /** 0 when the data could not be read (the page count is then stale), 1 otherwise. */
    loadData(data: string): number;
    getPageCount(): number;
    /** Lay the loaded data out again with the current options (e.g. another page width). */
    redoLayout(options?: Record<string, unknown>): void;
    renderToSVG(page: number, xmlDeclaration?: boolean): string;
    /** A Standard MIDI File, base64-encoded. */
    renderToMIDI(): string;
    /** Timing of every note and, with includeMeasures, every bar start (measureOn), in ms (tstamp) and quarter notes (qstamp). */
    renderToTimemap(options?: { includeMeasures?: boolean; includeRests?: boolean }): unknown[];
    getLog(): string;
    destroy(): void;
  }
}
