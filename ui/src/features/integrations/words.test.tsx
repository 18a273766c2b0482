// The Integrations page's words and parsers: arguments split like a shell, times, feed and sync
// lines, badges, and the setup steps' markdown (which never becomes HTML).
import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { GITHUB, makeApp, makeFeed, makeServer, SLACK } from './fakeIntegrations';
import { SimpleMarkdown } from './SimpleMarkdown';
import { agoWords, appBadge, feedWords, groupByCategory, needsWords, notAvailable, serverBadge, serverWhere, splitArgs, syncWords } from './words';

describe('integration words', () => {
  it('splits arguments at spaces, keeping quoted ones whole', () => {
    expect(splitArgs('/repo/index.js stdio')).toEqual(['/repo/index.js', 'stdio']);
    expect(splitArgs('  -y   @scope/server  ')).toEqual(['-y', '@scope/server']);
    expect(splitArgs('--root "/my files" \'a b\' c\\ d ""')).toEqual(['--root', '/my files', 'a b', 'c d', '']);
    expect(splitArgs('')).toEqual([]);
  });

  it('says how long ago, in plain words', () => {
    const now = new Date('2030-05-04T10:00:00Z');
    expect(agoWords('2030-05-04T09:59:30Z', now)).toBe('just now');
    expect(agoWords('2030-05-04T09:58:00Z', now)).toBe('2 min ago');
    expect(agoWords('2030-05-04T09:00:00Z', now)).toBe('1 hour ago');
    expect(agoWords('2030-05-03T09:00:00Z', now)).toBe('yesterday');
    expect(agoWords(null, now)).toBeNull();
  });

  it('reads a feed and a sync answer as one sentence', () => {
    const now = new Date('2030-05-04T10:00:00Z');
    expect(feedWords(makeFeed({ source: 'gmail', last_sync_at: '2030-05-04T09:58:00Z' }), now)).toBe('Checked 2 min ago');
    expect(
      feedWords(
        makeFeed({ source: 'gmail', status: 'error', last_error: 'Gmail refused the sign-in', next_attempt_at: '2030-05-04T10:05:00Z' }),
        now,
      ),
    ).toBe('Gmail refused the sign-in. Sentient tries again in 5 min.');
    expect(syncWords({ ok: true, emitted: 0 })).toBe('Checked: nothing new.');
    expect(syncWords({ ok: true, emitted: 1 })).toBe('Checked: 1 new item.');
    expect(syncWords({ ok: true, emitted: 0, rebaselined: true })).toBe('Checked. Sentient watches for changes from now on.');
    expect(syncWords({ ok: false, emitted: 0, error: 'The server is down.', failures: 2, retry_in_s: 30 })).toBe(
      'The server is down. Sentient tries again in 30 seconds.',
    );
    expect(syncWords({ ok: false, emitted: 0, skipped: 'not connected' })).toBe("It isn't connected.");
  });

  it('names states, groups apps and tells apps not available yet', () => {
    expect(notAvailable(SLACK)).toBe(true);
    expect(notAvailable(GITHUB)).toBe(false);
    expect(appBadge(SLACK).words).toBe('Not available yet');
    expect(appBadge({ ...GITHUB, status: 'connecting' }).words).toBe('Connecting…');
    expect(serverBadge(makeServer({ name: 's', enabled: false, status: 'disabled' })).words).toBe('Off');
    expect(serverBadge(makeServer({ name: 's', status: 'needs_sign_in' })).words).toBe('Needs sign-in');
    const groups = groupByCategory([makeApp({ id: 'x', category: 'core' }), makeApp({ id: 'y', category: 'new-kind' }), GITHUB]);
    expect(groups.map((g) => [g.label, g.apps.map((a) => a.id)])).toEqual([
      ['Development', ['github']],
      ['Utilities', ['y']],
      ['Built in', ['x']],
    ]);
    expect(needsWords(['API_KEY'])).toBe('Needs API_KEY');
    expect(needsWords(['A', 'B', 'C'])).toBe('Needs A, B and C');
    expect(serverWhere(makeServer({ name: 's', command: 'node', args: ['/my dir/x.js', 'stdio'] }))).toBe('node "/my dir/x.js" stdio');
  });
});

describe('setup steps', () => {
  it('renders lists, bold, code and links, and never HTML', () => {
    const { container } = render(
      <SimpleMarkdown text={'Intro with **bold**.\n\n1. One `code`\n2. Two [docs](https://example.com)\n\n- a\n- b <img src=x onerror=alert(1)>\n[bad](javascript:alert(1))'} />,
    );
    expect(container.querySelectorAll('ol li')).toHaveLength(2);
    expect(container.querySelectorAll('ul li')).toHaveLength(2);
    expect(container.querySelector('strong')?.textContent).toBe('bold');
    expect(container.querySelector('code')?.textContent).toBe('code');
    const link = container.querySelector('a');
    expect(link?.getAttribute('href')).toBe('https://example.com');
    expect(link?.getAttribute('target')).toBe('_blank');
    expect(container.querySelector('img')).toBeNull();
    expect(container.textContent).toContain('<img src=x onerror=alert(1)>');
    // Only web links become links.
    expect(container.querySelectorAll('a')).toHaveLength(1);
  });
});
