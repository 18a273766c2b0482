// session.updated in the query cache: a rename is shown at once, and a list fetch that started
// before it can't put the old title back.
import { QueryObserver } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { makeSession, wireEvent } from '../test/fakes';
import { applyEvent, createQueryClient, queryKeys } from './queries';
import type { Session } from './types';

const ev = (type: string, data: unknown) => wireEvent(type, data, '2030-05-04T10:00:00Z');

describe('session events in the cache', () => {
  it('a rename that lands while the list is being fetched survives the older answer', async () => {
    const qc = createQueryClient();
    const untitled = [makeSession({ id: 's1', title: '' })];
    const titled = [makeSession({ id: 's1', title: 'Milk note' })];
    let answerStale: (list: Session[]) => void = () => {};
    let calls = 0;
    const queryFn = () => {
      calls += 1;
      // The first fetch was asked before the rename and answers after it.
      return calls === 1 ? new Promise<Session[]>((resolve) => (answerStale = resolve)) : Promise.resolve(titled);
    };
    qc.setQueryData(queryKeys.sessions, untitled);
    const observer = new QueryObserver<Session[]>(qc, { queryKey: queryKeys.sessions, queryFn, staleTime: 0 });
    const stop = observer.subscribe(() => {});
    // Subscribing to stale data starts the first fetch.
    await new Promise((r) => setTimeout(r, 0));
    expect(calls).toBe(1);

    applyEvent(qc, ev('session.updated', { session_id: 's1', title: 'Milk note' }));
    expect(qc.getQueryData<Session[]>(queryKeys.sessions)?.[0].title).toBe('Milk note');
    answerStale(untitled);
    await new Promise((r) => setTimeout(r, 20));
    expect(qc.getQueryData<Session[]>(queryKeys.sessions)?.[0].title).toBe('Milk note');
    stop();
  });
});
