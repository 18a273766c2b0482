// What the Chat page shows, as data: the stored transcript folded into turns, then every live
// chat event applied to it. Pure functions, so the folding is tested without a page.
import { assertNever, type ApprovalDecision, type ChatEvent, type MemorySource, type MessageRow, type MessageVersion } from '../../api';

export type ApprovalView = {
  approval_id: string;
  name: string;
  risk: string;
  risk_label: string | null;
  target: string | null;
  reason: string;
  untrusted: string | null;
  /** The answer once given (or 'expired' when the question had already ended). */
  outcome: ApprovalDecision | 'expired' | null;
};

export type ToolView = {
  call_id: string;
  name: string;
  arguments: unknown;
  progress: string[];
  /** The newest picture of what the tool looks at (the browser's page), a data: address. */
  frame?: string;
  /** Set once the result is in. */
  result?: unknown;
  is_error: boolean;
  declined: boolean;
  duration_ms?: number;
  approval: ApprovalView | null;
};

/** A steer: words added while a reply runs. */
export type SteerStatus = 'waiting' | 'sent' | 'not_sent';

export type Segment =
  | { kind: 'text'; text: string }
  | { kind: 'tool'; tool: ToolView }
  | { kind: 'steer'; text: string; status: SteerStatus; client_id: string | null };

export type UserItem = {
  kind: 'user';
  key: string;
  text: string;
  attachments: string[];
  client_id: string | null;
  not_sent: boolean;
};

export type AssistantItem = {
  kind: 'assistant';
  key: string;
  turn_id: string | null;
  thinking: string;
  segments: Segment[];
  running: boolean;
  cancelled: boolean;
  error: string | null;
  message_id: string | null;
  memory_sources: MemorySource[];
  /** Every version of a regenerated answer, oldest first (`[]` when it has one). */
  versions: MessageVersion[];
  /** Which of `versions` is shown. */
  version_index: number;
  /** While Regenerate writes a new answer: the answer it replaces, shown again if it is refused. */
  previous: AssistantItem | null;
  /** Why Regenerate could not start (the answer itself is fine). */
  notice: string | null;
};

export type Item = UserItem | AssistantItem;

export type Usage = {
  model: string;
  context_used: number | null;
  context_length: number | null;
  context_percent: number | null;
  context_warning: string | null;
};

export type Conversation = {
  sessionId: string | null;
  items: Item[];
  usage: Usage | null;
};

let counter = 0;
const nextKey = (prefix: string) => `${prefix}-${++counter}`;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function emptyTurn(turn_id: string | null, running: boolean): AssistantItem {
  return {
    kind: 'assistant',
    key: nextKey('a'),
    turn_id,
    thinking: '',
    segments: [],
    running,
    cancelled: false,
    error: null,
    message_id: null,
    memory_sources: [],
    versions: [],
    version_index: 0,
    previous: null,
    notice: null,
  };
}

/**
 * Folds stored rows into items: each assistant message with tool calls, its tool messages and
 * what follows up to the next user message make one assistant turn.
 */
export function fromRows(sessionId: string | null, rows: MessageRow[]): Conversation {
  const items: Item[] = [];
  let turn: AssistantItem | null = null;
  for (const row of rows) {
    if (row.role === 'user' && !row.interjection) {
      turn = null;
      items.push({ kind: 'user', key: row.id, text: row.content, attachments: row.attachments, client_id: null, not_sent: false });
      continue;
    }
    if (!turn) {
      turn = { ...emptyTurn(null, false), key: row.id };
      items.push(turn);
    }
    // A regenerated answer's last row carries its versions; a failed turn's row its error.
    if (row.versions.length > 0) {
      turn.versions = row.versions;
      turn.version_index = row.version_index;
    }
    if (row.error) turn.error = row.error;
    if (row.role === 'user') {
      turn.segments.push({ kind: 'steer', text: row.content, status: 'sent', client_id: null });
    } else if (row.role === 'assistant') {
      if (row.thinking) turn.thinking += row.thinking;
      if (row.content) turn.segments.push({ kind: 'text', text: row.content });
      for (const call of row.tool_calls) {
        turn.segments.push({
          kind: 'tool',
          tool: {
            call_id: call.id,
            name: call.function.name,
            arguments: parseJson(call.function.arguments),
            progress: [],
            is_error: false,
            declined: false,
            approval: null,
          },
        });
      }
      turn.message_id = row.id;
      turn.memory_sources = (row.memory_sources ?? []) as unknown as MemorySource[];
      turn.cancelled = row.content.endsWith('(stopped)');
    } else if (row.role === 'tool') {
      const tool = findTool(turn, row.tool_call_id ?? '');
      const result = parseJson(row.content);
      if (tool) {
        tool.result = result;
        tool.declined = isObject(result) && result.declined === true;
        tool.is_error = isObject(result) && 'error' in result;
      }
    }
  }
  return { sessionId, items, usage: null };
}

function findTool(turn: AssistantItem, callId: string): ToolView | null {
  for (const s of turn.segments) if (s.kind === 'tool' && s.tool.call_id === callId) return s.tool;
  return null;
}

export type Action =
  | { type: 'reset'; conversation: Conversation }
  | { type: 'sent'; text: string; attachments: string[]; client_id: string }
  | { type: 'steered'; text: string; client_id: string }
  | { type: 'steer_not_queued'; client_id: string }
  | { type: 'send_failed'; client_id: string; message: string }
  | { type: 'answered'; approval_id: string; outcome: ApprovalDecision | 'expired' }
  | { type: 'regenerating' }
  | { type: 'regenerate_refused'; message: string }
  | { type: 'event'; event: ChatEvent };

/** Copies the items so React sees a change; turns and tools are rebuilt where touched. */
function withTurn(state: Conversation, turnId: string | null, change: (turn: AssistantItem) => AssistantItem): Conversation {
  const items = [...state.items];
  let at = -1;
  if (turnId) at = items.findIndex((i) => i.kind === 'assistant' && i.turn_id === turnId);
  // A turn not seen yet: the newest running one still waiting for its id, else a new one.
  if (at === -1) {
    const last = items.length - 1;
    const tail = items[last];
    if (tail && tail.kind === 'assistant' && tail.running && tail.turn_id === null) at = last;
  }
  if (at === -1) {
    items.push(emptyTurn(turnId, true));
    at = items.length - 1;
  }
  const turn = items[at] as AssistantItem;
  items[at] = change({ ...turn, turn_id: turn.turn_id ?? turnId, segments: [...turn.segments] });
  return { ...state, items };
}

function updateTool(turn: AssistantItem, callId: string, change: (tool: ToolView) => ToolView, name = ''): AssistantItem {
  const at = turn.segments.findIndex((s) => s.kind === 'tool' && s.tool.call_id === callId);
  if (at === -1) {
    const tool: ToolView = { call_id: callId, name, arguments: {}, progress: [], is_error: false, declined: false, approval: null };
    turn.segments.push({ kind: 'tool', tool: change(tool) });
  } else {
    const seg = turn.segments[at] as { kind: 'tool'; tool: ToolView };
    turn.segments[at] = { kind: 'tool', tool: change({ ...seg.tool }) };
  }
  return turn;
}

/** Marks waiting steers (all of them, or those whose words are in `texts`) as not sent. */
function dropSteers(items: Item[], texts: string[] | null): Item[] {
  return items.map((item) => {
    if (item.kind !== 'assistant' || !item.segments.some((s) => s.kind === 'steer' && s.status === 'waiting')) return item;
    return {
      ...item,
      segments: item.segments.map((s) =>
        s.kind === 'steer' && s.status === 'waiting' && (texts === null || texts.includes(s.text)) ? { ...s, status: 'not_sent' } : s,
      ),
    };
  });
}

function markUserNotSent(items: Item[], clientId: string | null | undefined): Item[] {
  if (!clientId) return items;
  return items.map((item) => {
    if (item.kind === 'user' && item.client_id === clientId) return { ...item, not_sent: true };
    if (item.kind === 'assistant' && item.segments.some((s) => s.kind === 'steer' && s.client_id === clientId)) {
      return {
        ...item,
        segments: item.segments.map((s) => (s.kind === 'steer' && s.client_id === clientId ? { ...s, status: 'not_sent' } : s)),
      };
    }
    return item;
  });
}

export function reduce(state: Conversation, action: Action): Conversation {
  switch (action.type) {
    case 'reset':
      return action.conversation;
    case 'sent':
      return {
        ...state,
        items: [
          ...state.items,
          { kind: 'user', key: nextKey('u'), text: action.text, attachments: action.attachments, client_id: action.client_id, not_sent: false },
          emptyTurn(null, true),
        ],
      };
    case 'steered': {
      const items = [...state.items];
      for (let i = items.length - 1; i >= 0; i--) {
        const item = items[i];
        if (item.kind === 'assistant' && item.running) {
          items[i] = {
            ...item,
            segments: [...item.segments, { kind: 'steer', text: action.text, status: 'waiting', client_id: action.client_id }],
          };
          return { ...state, items };
        }
      }
      return state;
    }
    case 'steer_not_queued': {
      // The reply had ended: the words became a message of their own.
      let text: string | null = null;
      const items: Item[] = state.items.map((item) => {
        if (item.kind !== 'assistant') return item;
        const steer = item.segments.find((s) => s.kind === 'steer' && s.client_id === action.client_id);
        if (!steer || steer.kind !== 'steer') return item;
        text = steer.text;
        return { ...item, segments: item.segments.filter((s) => s !== steer) };
      });
      if (text === null) return state;
      return {
        ...state,
        items: [
          ...items,
          { kind: 'user', key: nextKey('u'), text, attachments: [], client_id: action.client_id, not_sent: false },
          emptyTurn(null, true),
        ],
      };
    }
    case 'send_failed': {
      const items = markUserNotSent(state.items, action.client_id).map((item) =>
        item.kind === 'assistant' && item.running && item.turn_id === null ? { ...item, running: false, error: action.message } : item,
      );
      return { ...state, items };
    }
    case 'regenerating': {
      // The last answer makes way for the new one, written in its place.
      const at = lastAnswerIndex(state.items);
      if (at === -1) return state;
      const old = state.items[at] as AssistantItem;
      const items = [...state.items];
      items[at] = { ...emptyTurn(null, true), versions: old.versions, version_index: old.version_index, previous: old };
      return { ...state, items };
    }
    case 'regenerate_refused': {
      const at = lastAnswerIndex(state.items);
      const item = at === -1 ? null : (state.items[at] as AssistantItem);
      if (!item?.previous) return state;
      const items = [...state.items];
      items[at] = { ...item.previous, notice: action.message };
      return { ...state, items };
    }
    case 'answered':
      return {
        ...state,
        items: state.items.map((item) => {
          if (item.kind !== 'assistant') return item;
          const at = item.segments.findIndex((s) => s.kind === 'tool' && s.tool.approval?.approval_id === action.approval_id);
          if (at === -1) return item;
          const segments = [...item.segments];
          const seg = segments[at] as { kind: 'tool'; tool: ToolView };
          segments[at] = { kind: 'tool', tool: { ...seg.tool, approval: { ...(seg.tool.approval as ApprovalView), outcome: action.outcome } } };
          return { ...item, segments };
        }),
      };
    case 'event':
      return applyChatEvent(state, action.event);
  }
}

function applyChatEvent(state: Conversation, ev: ChatEvent): Conversation {
  switch (ev.type) {
    case 'session':
      return withTurn({ ...state, sessionId: ev.session_id }, ev.turn_id, (t) => t);
    case 'text_delta':
      return withTurn(state, ev.turn_id, (t) => {
        const last = t.segments.at(-1);
        if (last && last.kind === 'text') t.segments[t.segments.length - 1] = { kind: 'text', text: last.text + ev.text };
        else t.segments.push({ kind: 'text', text: ev.text });
        return t;
      });
    case 'thinking_delta':
      return withTurn(state, ev.turn_id, (t) => ({ ...t, thinking: t.thinking + ev.text }));
    case 'tool_call':
      return withTurn(state, ev.turn_id, (t) => updateTool(t, ev.call_id, (tool) => ({ ...tool, name: ev.name, arguments: ev.arguments }), ev.name));
    case 'tool_progress': {
      // A `frame` is a picture of the page the browser shows; only the newest is kept.
      if (ev.kind === 'frame') {
        const image = ev.image;
        if (!image) return state;
        return withTurn(state, ev.turn_id, (t) => updateTool(t, ev.call_id, (tool) => ({ ...tool, frame: image }), ev.name));
      }
      // Every other kind (stdout, stderr, status) is a line of text.
      const line = ev.text;
      if (!line) return state;
      return withTurn(state, ev.turn_id, (t) => updateTool(t, ev.call_id, (tool) => ({ ...tool, progress: [...tool.progress, line] }), ev.name));
    }
    case 'tool_result':
      return withTurn(state, ev.turn_id, (t) =>
        updateTool(
          t,
          ev.call_id,
          (tool) => ({
            ...tool,
            result: ev.result,
            is_error: ev.is_error,
            declined: isObject(ev.result) && ev.result.declined === true,
            duration_ms: ev.duration_ms,
          }),
          ev.name,
        ),
      );
    case 'approval_request':
      return withTurn(state, ev.turn_id, (t) =>
        updateTool(
          t,
          ev.call_id,
          (tool) => ({
            ...tool,
            arguments: tool.arguments ?? ev.arguments,
            approval: {
              approval_id: ev.approval_id,
              name: ev.name,
              risk: ev.risk,
              risk_label: ev.risk_label ?? null,
              target: ev.target ?? null,
              reason: ev.reason,
              untrusted: ev.untrusted ?? null,
              outcome: null,
            },
          }),
          ev.name,
        ),
      );
    case 'user_interjection':
      return withTurn(state, ev.turn_id, (t) => {
        const at = t.segments.findIndex((s) => s.kind === 'steer' && s.status === 'waiting' && s.text === ev.text);
        const waiting = at === -1 ? t.segments.findIndex((s) => s.kind === 'steer' && s.status === 'waiting') : at;
        if (waiting === -1) {
          t.segments.push({ kind: 'steer', text: ev.text, status: 'sent', client_id: null });
        } else {
          // Shown where the model read it, so the text after it reads as the answer to it.
          const steer = t.segments[waiting] as Extract<Segment, { kind: 'steer' }>;
          t.segments.splice(waiting, 1);
          t.segments.push({ ...steer, status: 'sent' });
        }
        return t;
      });
    case 'usage':
      return {
        ...state,
        usage: {
          model: ev.model,
          context_used: ev.context_used,
          context_length: ev.context_length,
          context_percent: ev.context_percent,
          context_warning: ev.context_warning,
        },
      };
    case 'error': {
      if (ev.dropped) return { ...state, items: markUserNotSent(state.items, ev.client_id) };
      return withTurn(state, ev.turn_id || null, (t) => ({ ...t, error: ev.message }));
    }
    case 'done': {
      let next = withTurn(state, ev.turn_id, (t) => {
        const hasText = t.segments.some((s) => s.kind === 'text' && s.text.trim() !== '');
        if (!hasText && ev.content) t.segments.push({ kind: 'text', text: ev.content });
        return {
          ...t,
          running: false,
          cancelled: ev.cancelled === true,
          message_id: ev.message_id ?? t.message_id,
          memory_sources: ev.memory_sources ?? [],
          versions: ev.versions ?? [],
          version_index: ev.version_index ?? 0,
          previous: null,
        };
      });
      let items = next.items;
      if (ev.dropped && ev.dropped.length > 0) {
        items = dropSteers(items, ev.dropped);
        items = markUserNotSent(items, ev.client_id);
      }
      // Words still waiting when a reply was stopped were never read.
      if (ev.cancelled) items = dropSteers(items, null);
      next = { ...next, items };
      return next;
    }
    case 'steer_ack':
      return state;
    default:
      // A chat event added in Rust is a compile error here until it has a case; at run time one
      // from a newer engine leaves the conversation as it was.
      assertNever(ev);
      return state;
  }
}

function lastAnswerIndex(items: Item[]): number {
  for (let i = items.length - 1; i >= 0; i--) if (items[i].kind === 'assistant') return i;
  return -1;
}

/** True while a reply is being written in this chat. */
export function isRunning(c: Conversation): boolean {
  const last = [...c.items].reverse().find((i) => i.kind === 'assistant');
  return last?.kind === 'assistant' && last.running;
}

/** A tool name as words: files_write → "Files write". */
export function toolLabel(name: string): string {
  const words = name.replace(/^mcp_/, '').replace(/_/g, ' ').trim();
  return words ? words[0].toUpperCase() + words.slice(1) : name;
}
