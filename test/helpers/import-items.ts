/** Staging an import item over HTTP as the folder importer does: its file first, then the item. */
import type { FastifyInstance } from 'fastify';

/**
 * PUT the item's file (under its SHA-256), then POST the item with `headers` (an admin key); the
 * two answers, for the test to check.
 */
export async function stageImportItem(
  app: FastifyInstance,
  headers: Record<string, string>,
  item: { body: unknown; bytes: Buffer; sha256: string },
) {
  const put = await app.inject({
    method: 'PUT',
    url: `/api/v1/admin/imports/files/${item.sha256}`,
    headers: { ...headers, 'content-type': 'application/octet-stream' },
    payload: item.bytes,
  });
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/admin/imports/items',
    payload: { contribution: item.body },
    headers: { ...headers, 'content-type': 'application/json' },
  });
  return { put, res };
}
