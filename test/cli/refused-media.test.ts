/**
 * A trace that holds a document or image the Messages API refuses (a CSV sent as a base64 document, a text document
 * labelled text/csv, a docx inside a tool result): the analysis commands replay it as it was sent (exit 0: a log is
 * analysed, never refused), and say so in one warning line per event, naming `file:line`, the block and what the API
 * takes; no stack trace. Under `--provider bedrock` (Converse takes csv and docx) nothing is said about them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliIn } from './run.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');
const at = (s: number) => new Date(Date.UTC(2026, 2, 2, 9, 0, s)).toISOString();
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const events = [
  { type: 'envelope', model: 'claude-sonnet-4-6', instructions: ['You are an agent.'], tools: [{ name: 'Read', input_schema: { type: 'object' } }] },
  {
    type: 'user',
    at: at(0),
    content: [
      { type: 'document', source: { type: 'base64', media_type: 'text/csv', data: b64('a,b\n1,2\n') }, title: 'sales' },
      { type: 'text', text: 'Sum it.' },
    ],
  },
  { type: 'assistant', at: at(5), content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { path: 'spec.docx' } }] },
  {
    type: 'tool_results',
    at: at(6),
    content: [
      {
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content: [{ type: 'document', source: { type: 'base64', media_type: DOCX, data: 'UEsDBA==' }, title: 'spec' }],
      },
    ],
  },
  { type: 'assistant', at: at(9), content: [{ type: 'text', text: 'Done.' }] },
];

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cachepoint-media-'));
  writeFileSync(join(dir, 'media.jsonl'), `${events.map((e) => JSON.stringify(e)).join('\n')}\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const STACK = /^\s+at /m;

describe('the CLI on a trace with documents the Messages API refuses', () => {
  it.each(['replay', 'simulate', 'render'])('%s: exit 0, one warning line per event naming file:line and the block, no stack', async (command) => {
    const r = await cliIn(dir, command, 'media.jsonl');
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(STACK);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      new RegExp(
        `^cachepoint ${command}: warning: media\\.jsonl:2: content\\[0\\]\\.source\\.media_type: "text/csv": the Messages API takes a base64 document only as 'application/pdf'.*; replayed as sent, but the API answers such a request with a 400$`,
      ),
    );
    expect(lines[1]).toMatch(/^cachepoint \w+: warning: media\.jsonl:4: content\[0\]\.content\[0\]\.source\.media_type: "application\/vnd\.openxmlformats/);
    expect(r.stdout.length).toBeGreaterThan(0);
  });

  it('simulate --provider bedrock: Converse takes these formats, nothing is said about them', async () => {
    const r = await cliIn(dir, 'simulate', 'media.jsonl', '--provider', 'bedrock');
    expect(r.stderr).not.toMatch(/Messages API takes/);
    expect(r.stderr).not.toMatch(STACK);
  });
});
