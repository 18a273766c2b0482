import { describe, expect, it } from 'vitest';
import { makeSession } from '../../test/fakes';
import { dayIn, groupChats, zoneFor } from './chatGroups';

const at = (id: string, updated_at: string) => makeSession({ id, title: id, created_at: '2030-01-01T00:00:00Z', updated_at });
const labels = (groups: ReturnType<typeof groupChats>) => groups.map((g) => [g.label, g.sessions.map((s) => s.id)]);

describe('chat groups', () => {
  // 23:30 UTC on 4 May is already 00:30 on 5 May in Lisbon (summer time, UTC+1).
  const now = new Date('2030-05-04T23:30:00Z');
  const sessions = [
    at('earlier', '2030-05-02T12:00:00Z'),
    at('late-on-the-4th', '2030-05-04T22:00:00Z'),
    at('just-now', '2030-05-04T23:20:00Z'),
    at('on-the-3rd', '2030-05-03T12:00:00Z'),
    at('lisbon-midnight', '2030-05-03T23:10:00Z'),
  ];

  it("groups by the last activity's day in the person's time zone, newest first", () => {
    expect(labels(groupChats(sessions, now, 'Europe/Lisbon'))).toEqual([
      ['Today', ['just-now']],
      ['Yesterday', ['late-on-the-4th', 'lisbon-midnight']],
      ['Earlier', ['on-the-3rd', 'earlier']],
    ]);
  });

  it('another zone gives other days for the same moments', () => {
    expect(labels(groupChats(sessions, now, 'UTC'))).toEqual([
      ['Today', ['just-now', 'late-on-the-4th']],
      ['Yesterday', ['lisbon-midnight', 'on-the-3rd']],
      ['Earlier', ['earlier']],
    ]);
    // In Tokyo it is already 08:30 on 5 May: noon UTC on the 3rd was that evening there.
    expect(labels(groupChats(sessions, now, 'Asia/Tokyo'))).toEqual([
      ['Today', ['just-now', 'late-on-the-4th']],
      ['Yesterday', ['lisbon-midnight']],
      ['Earlier', ['on-the-3rd', 'earlier']],
    ]);
  });

  it('leaves out empty groups and falls back to when the chat was made', () => {
    const made = makeSession({ id: 'fresh', created_at: '2030-05-04T23:00:00Z', updated_at: '' });
    expect(labels(groupChats([made], now, 'UTC'))).toEqual([['Today', ['fresh']]]);
    expect(groupChats([], now, 'UTC')).toEqual([]);
  });

  it('yesterday is the calendar day before, across a clock change', () => {
    // Europe/Lisbon moved its clocks forward on 31 March 2030 (a 23-hour day).
    const morning = new Date('2030-04-01T08:00:00Z');
    expect(dayIn(morning, 'Europe/Lisbon')).toBe('2030-04-01');
    expect(labels(groupChats([at('sunday-early', '2030-03-31T00:30:00Z')], morning, 'Europe/Lisbon'))).toEqual([['Yesterday', ['sunday-early']]]);
  });

  it('reads "auto", empty and unknown zones as this computer\'s', () => {
    expect(zoneFor('auto')).toBeUndefined();
    expect(zoneFor('')).toBeUndefined();
    expect(zoneFor('Mars/Olympus')).toBeUndefined();
    expect(zoneFor('Asia/Kolkata')).toBe('Asia/Kolkata');
  });
});
