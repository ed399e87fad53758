/**
 * Decode an MP3 or WAV file and measure it (docs/audio.md), in the thread that calls it: the
 * archive runs it in a worker thread (measure-audio.ts), never on the request thread. MP3 is
 * decoded by mpg123-decoder (mpg123 compiled to WebAssembly; gapless: the encoder's delay and
 * padding from the LAME header are trimmed), in 64 KiB pieces streamed into the meter; WAV is
 * read directly (src/domain/audio/wav.ts). The measurement itself is pure (src/domain/audio/).
 */
import { readFile } from 'node:fs/promises';
import { LoudnessMeter } from '../../src/domain/audio/loudness.ts';
import { measureAudio, type AudioMeasurement } from '../../src/domain/audio/measure.ts';
import { mpegChannels } from '../../src/domain/audio/mpeg.ts';
import { readWavFormat, wavFrames } from '../../src/domain/audio/wav.ts';

const MP3_PIECE = 64 * 1024;
const WAV_FRAMES = 65536;

export function decodeAndMeasure(kind: 'mp3' | 'wav', file: string): Promise<AudioMeasurement> {
  return kind === 'wav' ? measureWav(file) : measureMp3(file);
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

async function measureWav(file: string): Promise<AudioMeasurement> {
  const bytes = await readFile(file);
  const format = readWavFormat(bytes);
  const meter = new LoudnessMeter(format.sampleRate, format.channels);
  for (let at = 0; at < format.frames; at += WAV_FRAMES) {
    meter.push(wavFrames(bytes, format, at, WAV_FRAMES));
    await tick(); // other requests get the event loop between pieces
  }
  if (format.frames === 0) throw new Error('the WAV file holds no sample frames');
  return measureAudio(meter.result());
}

async function measureMp3(file: string): Promise<AudioMeasurement> {
  const { MPEGDecoder } = await import('mpg123-decoder');
  const bytes = await readFile(file);
  const decoder = new MPEGDecoder();
  await decoder.ready;
  try {
    // The decoder always answers two channels; a mono stream is measured as one (mpeg.ts).
    const mono = mpegChannels(bytes) === 1;
    let meter: LoudnessMeter | null = null;
    for (let at = 0; at < bytes.length; at += MP3_PIECE) {
      const out = decoder.decode(bytes.subarray(at, at + MP3_PIECE));
      if (out.samplesDecoded > 0) {
        const channels = mono ? out.channelData.slice(0, 1) : out.channelData;
        meter ??= new LoudnessMeter(out.sampleRate, channels.length);
        meter.push(channels.map((c) => c.subarray(0, out.samplesDecoded)));
      }
      await tick();
    }
    if (!meter) throw new Error('no MPEG audio frames decoded');
    return measureAudio(meter.result());
  } finally {
    decoder.free();
  }
}
