// The window's handler covers every domain event the engine can send. The variants come from Rust
// (DomainEvent in the generated bindings), so this file holds two compile-time checks that `tsc`
// runs (`npm run ui:build`): COVERAGE and SAMPLES must name every variant exactly once. The switch
// in `applyEvent` has its own (its `default` only accepts `never`). At run time, one sample of each
// variant goes through the real path (JSON, toEngineEvent, applyEvent): it must be recognised, and
// change the cache exactly when COVERAGE says the window acts on it.
import { describe, expect, it } from 'vitest';
import { IDLE, LAN_ON, makeBootstrap, makeNode, makeNotification, makeProposal, makeRun, makeSession, makeTask, RUNNING } from '../test/fakes';
import { assertNever, toEngineEvent } from './events';
import { applyEvent, createQueryClient, queryKeys } from './queries';
import type { DomainEvent, DomainEventType, EngineEvent, NotificationList } from './types';

/** What the window does with each variant: apply it to the query cache, or ignore it on purpose. */
type Coverage = 'cache' | 'ignored';

// A missing or extra variant name fails tsc.
const COVERAGE: Record<DomainEventType, Coverage> = {
  'config.updated': 'cache',
  'stop.updated': 'cache',
  'session.updated': 'cache',
  'model.busy': 'cache',
  'notification.new': 'cache',
  'notification.updated': 'cache',
  'notification.read': 'cache',
  'notification.deleted': 'cache',
  'rule_proposal.updated': 'cache',
  'task.updated': 'cache',
  'task.deleted': 'cache',
  'task.run_progress': 'cache',
  'source.items': 'ignored',
  'integration.updated': 'cache',
  'task.run_activity': 'ignored',
  'task.run_context': 'ignored',
  'node.updated': 'cache',
  'node.deleted': 'cache',
  'node.event': 'ignored',
  'task.run_finished': 'ignored',
  'memory.updated': 'cache',
  'browser.updated': 'cache',
  'browser.frame': 'cache',
  'subagent.updated': 'cache',
  'chat.turn_completed': 'ignored',
};

type DataOf<K extends DomainEventType> = Extract<DomainEvent, { type: K }>['data'];

// One payload per variant, of the generated shape: a missing, extra or misshapen one fails tsc.
const SAMPLES: { [K in DomainEventType]: DataOf<K> } = {
  'config.updated': { sections: ['models'] },
  'stop.updated': { stopped: true, stopped_at: '2030-05-04T10:00:00Z', source: 'desktop' },
  'session.updated': { session_id: 's1', title: 'Milk note' },
  'model.busy': { ...IDLE, busy: true, job: 'chat', model: 'qwen3:8b', since: '2030-05-04T10:00:00Z' },
  'notification.new': makeNotification({ id: 'n2', created_at: '2030-05-04T11:00:00Z' }),
  'notification.updated': makeNotification({ id: 'n1', read: true, payload: { status: 'approved' } }),
  'notification.read': { id: 'n1' },
  'notification.deleted': { id: null },
  'rule_proposal.updated': makeProposal({ id: 'rp2', session_id: 's1' }),
  'task.updated': makeTask({ task_id: 'a', name: 'A2', status: 'approval_pending', updated_at: '2030-05-04T11:00:00Z' }),
  'task.deleted': { task_id: 'a' },
  'task.run_progress': {
    task_id: 'a',
    run_id: 'r1',
    update: { timestamp: '2030-05-04T10:00:05Z', message: { type: 'info', content: 'Run started.' } },
  },
  'source.items': { source: 'webhook', event: 'h1', origin: 'webhook', items: [{ text: 'Build failed' }] },
  'integration.updated': {
    id: 'webhooks',
    display_name: 'Webhooks',
    description: 'Outside programs start triggered tasks.',
    category: 'developer',
    icon: 'webhook',
    auth_type: 'none',
    connected: true,
    account_label: null,
    status: 'connected',
    error: null,
    setup: { fields: [], instructions_md: '', docs_url: null },
    privacy_filters: { supported: false, fields: [] },
    triggers: [{ event: 'h1', label: 'CI' }],
    alternative_for: null,
    access: 'read',
    tools: [],
  },
  'task.run_activity': { task_id: 'a', run_id: 'r1', last_activity_at: '2030-05-04T10:00:10Z' },
  'task.run_context': { task_id: 'a', run_id: 'r1', used: 1200, length: 8192, percent: 15, warning: null },
  'node.updated': makeNode({ node_id: 'phone', name: 'Work phone' }),
  'node.deleted': { node_id: 'phone' },
  'node.event': { node_id: 'phone', event: 'button', data: { press: 'long' } },
  'task.run_finished': { task_id: 'a', run_id: 'r1', status: 'completed', tool_errors: 0, skills_viewed: [], brief_updated: false },
  'memory.updated': { action: 'ADD', id: 4, content: 'User lives in Lisbon' },
  'browser.updated': {
    available: true,
    running: true,
    engine: 'chromium',
    headless: true,
    tabs: [{ index: 0, url: 'https://example.com/', title: 'Example', active: true }],
    error: null,
    profile: 'default',
    attached: false,
    needs_you: null,
  },
  'browser.frame': { url: 'https://example.com/', title: 'Example', image: 'data:image/jpeg;base64,/9j/' },
  'subagent.updated': {
    subagent_id: 'h1',
    session_id: 's1',
    parent_call_id: 'call_1',
    goal: 'Compare train times',
    status: 'completed',
    background: true,
    summary: 'The 07:10 is fastest.',
    error: null,
    tool_calls: 2,
    started_at: '2030-05-04T10:00:00Z',
    finished_at: '2030-05-04T10:01:00Z',
  },
  'chat.turn_completed': {
    session_id: 's1',
    turn_id: 't1',
    tool_calls: 1,
    tool_errors: 0,
    skills_viewed: [],
    user_text: 'Hi',
    reply: 'Hello',
  },
};

const TYPES = Object.keys(COVERAGE) as DomainEventType[];

/** A cache holding everything an event could touch. */
function seededClient() {
  const qc = createQueryClient();
  const task = makeTask({ task_id: 'a', runs: [makeRun({ run_id: 'r1' })] });
  const feed: NotificationList = { notifications: [makeNotification({ id: 'n1' })], unread: 1 };
  qc.setQueryData(queryKeys.bootstrap, makeBootstrap());
  qc.setQueryData(queryKeys.stop, RUNNING);
  qc.setQueryData(queryKeys.config, {});
  qc.setQueryData(queryKeys.roles, {});
  qc.setQueryData(queryKeys.providers, []);
  qc.setQueryData(queryKeys.presets, {});
  qc.setQueryData(queryKeys.secrets, []);
  qc.setQueryData(queryKeys.modelBusy, IDLE);
  qc.setQueryData(queryKeys.sessions, [makeSession({ id: 's1', title: 'New chat' })]);
  qc.setQueryData(queryKeys.ruleProposals('s1'), [makeProposal({ id: 'rp1', session_id: 's1' })]);
  qc.setQueryData(queryKeys.subagents('s1'), []);
  qc.setQueryData(queryKeys.messages('s1'), []);
  qc.setQueryData(queryKeys.tasks, [task]);
  qc.setQueryData(queryKeys.task('a'), task);
  qc.setQueryData(queryKeys.runEvents('a', 'r1'), []);
  qc.setQueryData(queryKeys.notifications, feed);
  qc.setQueryData(queryKeys.hooks, []);
  qc.setQueryData(queryKeys.nodes, [makeNode({ node_id: 'phone' })]);
  qc.setQueryData(queryKeys.lan, LAN_ON);
  qc.setQueryData([...queryKeys.memory, 'facts', {}], []);
  return qc;
}

/** Each query's data and whether it was marked stale, to tell whether an event touched any. */
function snapshot(qc: ReturnType<typeof createQueryClient>) {
  return new Map(qc.getQueryCache().getAll().map((q) => [q.queryHash, { data: q.state.data, stale: q.state.isInvalidated }]));
}

function changed(before: ReturnType<typeof snapshot>, after: ReturnType<typeof snapshot>): string[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((k) => {
    const a = before.get(k);
    const b = after.get(k);
    return !a || !b || a.data !== b.data || a.stale !== b.stale;
  });
}

/** The event as it travels: JSON on the wire, read by toEngineEvent like both transports do. */
function overTheWire(type: DomainEventType): EngineEvent {
  const ev = toEngineEvent(JSON.parse(JSON.stringify({ type, data: SAMPLES[type], ts: '2030-05-04T10:00:00Z' })));
  if (!ev) throw new Error(`toEngineEvent dropped ${type}`);
  return ev;
}

describe('the window handles every domain event', () => {
  it('has one sample for each variant it lists', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual([...TYPES].sort());
    expect(TYPES.length).toBeGreaterThan(0);
  });

  it.each(TYPES)('%s is recognised, and changes the cache only when the window acts on it', (type) => {
    const qc = seededClient();
    const before = snapshot(qc);
    const ev = overTheWire(type);
    expect(ev.type).toBe(type);
    expect(ev.data).toEqual(SAMPLES[type]);
    let known = false;
    expect(() => {
      known = applyEvent(qc, ev);
    }).not.toThrow();
    expect(known).toBe(true);
    const touched = changed(before, snapshot(qc));
    if (COVERAGE[type] === 'cache') expect(touched).not.toEqual([]);
    else expect(touched).toEqual([]);
  });

  it('an event it does not know (a newer engine), chat events and the connection’s own are left alone', () => {
    const qc = seededClient();
    const before = snapshot(qc);
    const unknown = toEngineEvent({ type: 'task.made_up', data: { task_id: 'a' }, ts: '2030-05-04T10:00:00Z' });
    const chat = toEngineEvent({ type: 'text_delta', session_id: 's1', turn_id: 't1', text: 'Hi' });
    const hello = toEngineEvent({ type: 'hello', version: '0.1.0', assistant: 'Sentient' });
    const lost: EngineEvent = { type: 'connection.lost', data: null, ts: '2030-05-04T10:00:00Z' };
    for (const ev of [unknown, chat, hello, lost]) {
      expect(ev).not.toBeNull();
      expect(applyEvent(qc, ev as EngineEvent)).toBe(false);
    }
    expect(changed(before, snapshot(qc))).toEqual([]);
  });

  it('the compile-time checks bite (checked by tsc: an unused @ts-expect-error is an error)', () => {
    // @ts-expect-error a variant name the generated union doesn't have is refused
    const extra: Record<DomainEventType, Coverage> = { ...COVERAGE, 'task.made_up': 'cache' };
    // @ts-expect-error a switch's default that still has a variant left is refused
    const leftover = (ev: DomainEvent) => (ev.type === 'task.updated' ? true : assertNever(ev));
    expect(extra['task.updated']).toBe('cache');
    expect(typeof leftover).toBe('function');
  });
});
