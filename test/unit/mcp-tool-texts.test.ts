/** The MCP tools' names and descriptions are data in src/ (the site's /llms-full.txt lists them); the server announces exactly those, in that order. */
import { describe, expect, it } from 'vitest';
import { TOOLS } from '../../api/mcp/tools.ts';
import { MCP_TOOL_TEXTS } from '../../src/domain/mcp-tools.ts';

describe('MCP tool texts', () => {
  it('the server lists every tool of src/domain/mcp-tools.ts, in its order, with its title and description', () => {
    expect(TOOLS.map((t) => ({ name: t.name, title: t.title, description: t.description }))).toEqual(
      MCP_TOOL_TEXTS.map((t) => ({ ...t })),
    );
  });
});
