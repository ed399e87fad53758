// Stored files of a work (MusicXML, MP3, MIDI), published byte-for-byte when their asset is public.
import { readFileSync } from 'node:fs';
import type { APIRoute, GetStaticPaths } from 'astro';
import { worksInScope } from '../../../../lib/site-data.ts';

export const getStaticPaths = (() =>
  worksInScope().flatMap((work) => {
    const assets = [...work.loaded.content.sourceAssets, ...work.loaded.content.arrangements.flatMap((a) => a.assets)];
    return assets
      .filter((a) => a.file !== undefined && a.access === 'public')
      .map((a) => ({
        params: { slug: work.entry.slug, file: a.file! },
        props: { path: work.loaded.files.get(a.file!)!.absolutePath },
      }));
  })) satisfies GetStaticPaths;

export const GET: APIRoute = ({ props }) =>
  new Response(new Uint8Array(readFileSync((props as { path: string }).path)));
