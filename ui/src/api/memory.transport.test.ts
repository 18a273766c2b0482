// Importing a document into memory over both transports: HTTP sends it as multipart to
// /api/memories/import (field `file`), Tauri runs `import_memories` with its name and bytes; a
// refusal is the engine's sentence either way.
import { clearMocks, mockIPC } from '@tauri-apps/api/mocks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeWebSocket, jsonResponse } from '../test/fakes';
import { ApiError } from './errors';
import { createHttpApi } from './http';
import { createTauriApi } from './tauri';
import type { ImportResult } from './types';

const RESULT: ImportResult = { added: 2, updated: 0, skipped: 1, pending: 2, source: 'file:resume.pdf' };
const NOT_THESE = 'Sentient can import PDF, Word (.docx), text and Markdown files; budget.xls is none of these.';

function httpApi(answer: () => Response) {
  window.history.replaceState(null, '', '/#token=mem-tok');
  const calls: Array<{ url: string; init: RequestInit }> = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    calls.push({ url: String(input), init });
    return answer();
  });
  const api = createHttpApi({
    fetch: fetch as unknown as typeof globalThis.fetch,
    WebSocket: FakeWebSocket as unknown as typeof WebSocket,
    origin: 'http://127.0.0.1:4321',
  });
  return { api, calls };
}

beforeEach(() => {
  FakeWebSocket.instances = [];
  window.sessionStorage.clear();
});

afterEach(() => {
  clearMocks();
  delete (window as unknown as Record<string, unknown>).__TAURI_INTERNALS__;
});

describe('importing a document over HTTP', () => {
  it('posts the file as multipart field `file` with its name, and answers the counts', async () => {
    const { api, calls } = httpApi(() => jsonResponse(200, RESULT));
    const result = await api.importMemories(new Blob(['%PDF-1.4'], { type: 'application/pdf' }), 'resume.pdf');
    expect(result).toEqual(RESULT);
    expect(calls).toHaveLength(1);
    expect(calls[0].url).toBe('http://127.0.0.1:4321/api/memories/import');
    expect(calls[0].init.method).toBe('POST');
    const form = calls[0].init.body as FormData;
    expect(form).toBeInstanceOf(FormData);
    expect([...form.keys()]).toEqual(['file']);
    expect((form.get('file') as File).name).toBe('resume.pdf');
    const headers = calls[0].init.headers as Record<string, string>;
    expect(headers.Authorization).toBe('Bearer mem-tok');
    // fetch sets the multipart boundary itself.
    expect(headers['Content-Type']).toBeUndefined();
  });

  it("gives the engine's sentence and status when the file is refused", async () => {
    const { api } = httpApi(() => jsonResponse(400, { detail: NOT_THESE }));
    const err = await api.importMemories(new Blob(['a,b']), 'budget.xls').catch((e: unknown) => e);
    expect(err).toEqual(new ApiError(400, NOT_THESE));
    expect((err as ApiError).status).toBe(400);
  });
});

describe('importing a document in the desktop app', () => {
  it('runs import_memories with the name and bytes', async () => {
    const calls: Array<[string, unknown]> = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      return RESULT;
    });
    expect(await createTauriApi().importMemories(new Blob(['bees']), 'notes.md')).toEqual(RESULT);
    expect(calls).toEqual([['import_memories', { body: { name: 'notes.md', bytes: [98, 101, 101, 115] } }]]);
  });

  it("turns the command's typed error into ApiError", async () => {
    mockIPC(() => Promise.reject({ status: 400, detail: NOT_THESE }));
    const err = await createTauriApi().importMemories(new Blob(['a,b']), 'budget.xls').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
    expect((err as ApiError).detail).toBe(NOT_THESE);
  });
});
