import { emit } from '@tauri-apps/api/event';
import { clearMocks, mockIPC, mockWindows } from '@tauri-apps/api/mocks';
import { afterEach, describe, expect, it } from 'vitest';
import { ONBOARDING_BODY } from '../test/fakes';
import { ApiError } from './errors';
import { TAURI_EVENT } from './events';
import { createApi, isTauri } from './index';
import { createTauriApi } from './tauri';
import type { EngineEvent } from './types';

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
