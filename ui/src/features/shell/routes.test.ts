import { afterEach, describe, expect, it } from 'vitest';
import { pageForKey, pageFromHash } from './routes';

const key = (k: string, mods: Partial<Record<'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey', boolean>> = {}) => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  ...mods,
});

describe('keyboard navigation', () => {
  it('maps Ctrl or Cmd with 1 to 7 to the sidebar pages in order', () => {
    expect(pageForKey(key('1', { ctrlKey: true }))).toBe('chat');
    expect(pageForKey(key('2', { ctrlKey: true }))).toBe('tasks');
    expect(pageForKey(key('6', { ctrlKey: true }))).toBe('devices');
    expect(pageForKey(key('7', { metaKey: true }))).toBe('settings');
  });

  it('leaves other keys alone', () => {
    expect(pageForKey(key('2'))).toBeNull();
    expect(pageForKey(key('8', { ctrlKey: true }))).toBeNull();
    expect(pageForKey(key('s', { ctrlKey: true }))).toBeNull();
    // Ctrl+Alt+Shift+S is the global Stop hotkey; its digits cousins are not ours either.
    expect(pageForKey(key('2', { ctrlKey: true, altKey: true }))).toBeNull();
  });
});

describe('hash routes', () => {
  afterEach(() => window.history.replaceState(null, '', '/'));
  it('opens chat for no address and says so for an unknown one', () => {
    expect(pageFromHash('#/tasks')).toBe('tasks');
    expect(pageFromHash('#/devices')).toBe('devices');
    expect(pageFromHash('#/tasks/abc')).toBe('tasks');
    expect(pageFromHash('#/nope')).toBe('not_found');
    expect(pageFromHash('')).toBe('chat');
    expect(pageFromHash('#/')).toBe('chat');
    expect(pageFromHash('#token=abc')).toBe('chat');
  });
});
