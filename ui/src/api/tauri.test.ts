import { Channel } from '@tauri-apps/api/core';
import { emit } from '@tauri-apps/api/event';
import { clearMocks, mockIPC, mockWindows } from '@tauri-apps/api/mocks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ONBOARDING_BODY } from '../test/fakes';
import { ApiError } from './errors';
import { TAURI_EVENT } from './events';
import { createApi, isTauri } from './index';
import { createTauriApi } from './tauri';
import type { CheckupLine, EngineEvent, PullProgress } from './types';

const STOPPED = { stopped: true, stopped_at: '2030-05-04T10:00:00Z', source: 'tray' };

afterEach(() => {
  clearMocks();
  delete (window as unknown as Record<string, unknown>).__TAURI_INTERNALS__;
});

/** Waits until pending promise callbacks (the event plugin's listen/unlisten) have run. */
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('Tauri transport', () => {
  it('is chosen when the window runs inside Tauri', () => {
    expect(isTauri()).toBe(false);
    expect(createApi().transport).toBe('http');
    mockIPC(() => null);
    expect(isTauri()).toBe(true);
    expect(createApi().transport).toBe('tauri');
  });

  it('names the page in both the document and the native window title', async () => {
    mockWindows('main');
    const calls: Array<[string, unknown]> = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      return null;
    });
    createTauriApi().setTitle('Tasks · Sentient');
    await settle();
    expect(document.title).toBe('Tasks · Sentient');
    const setTitle = calls.find(([cmd]) => cmd === 'plugin:window|set_title');
    expect(setTitle?.[1]).toMatchObject({ label: 'main', value: 'Tasks · Sentient' });
  });

  it('calls the generated commands by their Rust names with camelCase arguments', async () => {
    const calls: Array<[string, unknown]> = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      switch (cmd) {
        case 'health':
          return { ok: true, version: '0.1.0', name: 'Sentient' };
        case 'bootstrap':
          return { version: '0.1.0' };
        case 'onboarding':
          return { ok: true };
        case 'get_stop':
          return STOPPED;
        case 'stop_all':
          return { ...STOPPED, cancelled: 3 };
        case 'resume':
          return { stopped: false, stopped_at: null, source: 'desktop' };
        case 'get_config':
          return { ui: { theme: 'dark' } };
        case 'patch_config':
          return { saved: true, config: { ui: { theme: 'light' } } };
      }
      throw new Error(`unexpected command ${cmd}`);
    });
    const api = createTauriApi();
    const body = ONBOARDING_BODY;

    expect(await api.health()).toEqual({ ok: true, version: '0.1.0', name: 'Sentient' });
    expect(await api.bootstrap()).toEqual({ version: '0.1.0' });
    expect(await api.onboarding(body)).toEqual({ ok: true });
    expect(await api.getStop()).toEqual(STOPPED);
    expect(await api.stopAll()).toEqual({ ...STOPPED, cancelled: 3 });
    expect(await api.resume('hotkey')).toEqual({ stopped: false, stopped_at: null, source: 'desktop' });
    expect(await api.getConfig()).toEqual({ ui: { theme: 'dark' } });
    expect(await api.patchConfig({ ui: { theme: 'light' } })).toEqual({ saved: true, config: { ui: { theme: 'light' } } });

    expect(calls.map(([cmd]) => cmd)).toEqual([
      'health',
      'bootstrap',
      'onboarding',
      'get_stop',
      'stop_all',
      'resume',
      'get_config',
      'patch_config',
    ]);
    const args = Object.fromEntries(calls);
    expect(args.onboarding).toEqual({ body });
    expect(args.stop_all).toEqual({ source: 'desktop' });
    expect(args.resume).toEqual({ source: 'hotkey' });
    expect(args.patch_config).toEqual({ patch: { ui: { theme: 'light' } } });
  });

  it('throws ApiError with the detail when a command returns its typed error', async () => {
    mockIPC((cmd) => {
      if (cmd === 'stop_all') return Promise.reject({ status: 409, detail: 'Sentient is already stopped.' });
      if (cmd === 'patch_config')
        return Promise.reject({ status: 422, detail: [{ loc: ['ui', 'theme'], msg: 'Pick dark or light.', type: 'value_error' }] });
      if (cmd === 'get_config') return Promise.reject('command get_config not found');
      return null;
    });
    const api = createTauriApi();

    const err = await api.stopAll().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 409, detail: 'Sentient is already stopped.' });

    await expect(api.patchConfig({ ui: { theme: 'x' } })).rejects.toMatchObject({ status: 422, detail: 'Pick dark or light.' });

    const raw = await api.getConfig().catch((e: unknown) => e);
    expect(raw).toBeInstanceOf(ApiError);
    expect((raw as ApiError).detail).toBe('command get_config not found');
  });

  it('turns a thrown Error (IPC failure) into ApiError too', async () => {
    mockIPC(() => {
      throw new Error('IPC broke');
    });
    const err = await createTauriApi().bootstrap().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 500, detail: 'IPC broke' });
  });

  it('delivers sentient://event payloads to subscribers until they unsubscribe', async () => {
    mockIPC(() => null, { shouldMockEvents: true });
    const api = createTauriApi();
    const seen: EngineEvent[] = [];
    const unsubscribe = api.subscribe((ev) => seen.push(ev));
    await settle();

    await emit(TAURI_EVENT, { type: 'stop.updated', data: STOPPED, ts: '2030-05-04T10:00:00Z' });
    await emit('some-other-event', { type: 'stop.updated', data: {}, ts: 'x' });
    expect(seen).toEqual([{ type: 'stop.updated', data: STOPPED, ts: '2030-05-04T10:00:00Z' }]);

    unsubscribe();
    await settle();
    await emit(TAURI_EVENT, { type: 'config.updated', data: { sections: ['ui'] }, ts: 't' });
    expect(seen).toHaveLength(1);
  });

  it('does not deliver events to a subscriber that left before listening finished', async () => {
    mockIPC(() => null, { shouldMockEvents: true });
    const api = createTauriApi();
    const seen: EngineEvent[] = [];
    api.subscribe((ev) => seen.push(ev))();
    await settle();
    await emit(TAURI_EVENT, { type: 'stop.updated', data: STOPPED, ts: 't' });
    expect(seen).toEqual([]);
  });
});

describe('Tauri transport: models and secrets', () => {
  it('calls the model and secret commands with their arguments', async () => {
    const calls: Array<[string, unknown]> = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      switch (cmd) {
        case 'model_providers':
          return [{ id: 'anthropic' }];
        case 'local_models':
          return { ollama: { reachable: true, models: [] }, lm_studio: { reachable: false, models: [] } };
        case 'test_model':
          return { ok: false, latency_ms: 12, reply: null, error: 'No key is set for Anthropic.', supports_tools: null };
        case 'test_embedding':
          return { ok: true, dim: 768, error: null };
        case 'get_roles':
        case 'set_roles':
          return { primary: 'ollama_chat/qwen3:8b', fast: 'ollama_chat/qwen3:4b' };
        case 'set_fallbacks':
        case 'set_secret':
        case 'delete_secret':
          return { ok: true };
        case 'model_busy':
          return { busy: true, job: 'task', model: 'ollama_chat/qwen3:8b', since: 't', waiting: 1, deferred: 0, deferred_reason: null };
        case 'hardware':
          return { summary: 'unknown' };
        case 'list_secrets':
          return [{ name: 'anthropic', set: false, source: null, kind: 'provider' }];
      }
      throw new Error(`unexpected command ${cmd}`);
    });
    const api = createTauriApi();

    expect(await api.modelProviders()).toEqual([{ id: 'anthropic' }]);
    expect((await api.localModels()).ollama.reachable).toBe(true);
    expect((await api.testModel({ model: 'anthropic/claude-sonnet-5', role: 'primary' })).error).toBe('No key is set for Anthropic.');
    expect((await api.testEmbedding({ model: 'ollama/nomic-embed-text' })).dim).toBe(768);
    expect((await api.getRoles()).fast).toBe('ollama_chat/qwen3:4b');
    await api.setRoles({ fast: 'ollama_chat/qwen3:4b', voice: null });
    await api.setFallbacks({ primary: ['openai/gpt-5-mini'] });
    expect((await api.modelBusy()).job).toBe('task');
    await api.hardware();
    await api.hardware(true);
    expect((await api.listSecrets())[0].set).toBe(false);
    await api.setSecret('anthropic', 'sk-ant-123');
    await api.deleteSecret('anthropic');

    expect(calls).toEqual([
      ['model_providers', {}],
      ['local_models', {}],
      ['test_model', { body: { model: 'anthropic/claude-sonnet-5', role: 'primary' } }],
      ['test_embedding', { body: { model: 'ollama/nomic-embed-text' } }],
      ['get_roles', {}],
      ['set_roles', { roles: { fast: 'ollama_chat/qwen3:4b', voice: null } }],
      ['set_fallbacks', { fallbacks: { primary: ['openai/gpt-5-mini'] } }],
      ['model_busy', {}],
      ['hardware', { refresh: false }],
      ['hardware', { refresh: true }],
      ['list_secrets', {}],
      ['set_secret', { name: 'anthropic', body: { value: 'sk-ant-123' } }],
      ['delete_secret', { name: 'anthropic' }],
    ]);
  });

  it('streams download progress through a channel, in order, and resolves when the command returns', async () => {
    const sent: PullProgress[] = [
      { status: 'pulling manifest' },
      { status: 'pulling 6a0746', completed: 500, total: 2000 },
      { status: 'pulling 6a0746', completed: 2000, total: 2000 },
      { status: 'success' },
    ];
    let pullArgs: Record<string, unknown> | undefined;
    mockIPC(async (cmd, args) => {
      if (cmd !== 'pull_model') throw new Error(`unexpected command ${cmd}`);
      pullArgs = args as Record<string, unknown>;
      const channel = pullArgs.onProgress as Channel<PullProgress>;
      expect(channel).toBeInstanceOf(Channel);
      const internals = (window as unknown as { __TAURI_INTERNALS__: { runCallback: (id: number, data: unknown) => void } })
        .__TAURI_INTERNALS__;
      // Rust numbers each message; send two out of order to check they are delivered in order.
      internals.runCallback(channel.id, { index: 1, message: sent[1] });
      internals.runCallback(channel.id, { index: 0, message: sent[0] });
      await settle();
      internals.runCallback(channel.id, { index: 2, message: sent[2] });
      internals.runCallback(channel.id, { index: 3, message: sent[3] });
      internals.runCallback(channel.id, { index: 4, end: true });
      return null;
    });

    const lines: PullProgress[] = [];
    await createTauriApi().pullModel('qwen3:8b', (line) => lines.push(line));

    expect(pullArgs?.body).toEqual({ name: 'qwen3:8b' });
    expect(lines).toEqual(sent);
  });

  it('throws ApiError when the download is refused', async () => {
    mockIPC((cmd) => {
      if (cmd === 'pull_model') return Promise.reject({ status: 422, detail: [{ loc: ['body', 'name'], msg: 'Name the model to download, for example qwen3:8b.', type: 'value_error' }] });
      return null;
    });
    const onProgress = vi.fn();
    const err = await createTauriApi()
      .pullModel(' ', onProgress)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 422, detail: 'Name the model to download, for example qwen3:8b.' });
    expect(onProgress).not.toHaveBeenCalled();
  });
});

describe('Tauri transport: presets and the check-up', () => {
  it('calls the preset commands with their arguments', async () => {
    const calls: Array<[string, unknown]> = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      if (cmd === 'model_presets') return { active: null, modified: false, can_undo: false, undo_preset: null, presets: [] };
      if (cmd === 'apply_model_preset' || cmd === 'undo_model_preset') return { preset: null, changed: [], missing: [], can_undo: true };
      if (cmd === 'save_model_preset' || cmd === 'rename_model_preset') return { name: 'x' };
      if (cmd === 'delete_model_preset') return { ok: true };
      throw new Error(`unexpected command ${cmd}`);
    });
    const api = createTauriApi();
    await api.modelPresets();
    await api.applyModelPreset('Local only');
    await api.undoModelPreset();
    await api.saveModelPreset({ name: 'Work' });
    await api.renameModelPreset('Work', 'Office');
    await api.deleteModelPreset('Office');
    expect(calls).toEqual([
      ['model_presets', {}],
      ['apply_model_preset', { name: 'Local only' }],
      ['undo_model_preset', {}],
      ['save_model_preset', { body: { name: 'Work' } }],
      ['rename_model_preset', { name: 'Work', body: { name: 'Office' } }],
      ['delete_model_preset', { name: 'Office' }],
    ]);
  });

  it('streams the check-up through a channel', async () => {
    const sent = [
      { type: 'start', roles: [{ role: 'fast', model: null }], hardware: {} },
      { type: 'role', role: 'fast', model: null, provider: null, local: false, inherits: 'primary', status: 'skip', checks: [] },
      { type: 'done', status: 'skip', roles: [] },
    ];
    let body: unknown;
    mockIPC(async (cmd, args) => {
      if (cmd !== 'model_checkup') throw new Error(`unexpected command ${cmd}`);
      const a = args as { body: unknown; onLine: Channel<unknown> };
      body = a.body;
      const internals = (window as unknown as { __TAURI_INTERNALS__: { runCallback: (id: number, data: unknown) => void } })
        .__TAURI_INTERNALS__;
      sent.forEach((message, index) => internals.runCallback(a.onLine.id, { index, message }));
      internals.runCallback(a.onLine.id, { index: sent.length, end: true });
      return null;
    });
    const lines: CheckupLine[] = [];
    await createTauriApi().modelCheckup({ roles: { fast: null } }, (line) => lines.push(line));
    expect(body).toEqual({ roles: { fast: null } });
    expect(lines).toEqual(sent);
  });
});
