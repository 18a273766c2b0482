// The open chat: its stored transcript, then live events of the replies started here. Sending
// while a reply runs steers it; Stop cancels it; approval answers go back to the engine. The
// messages scroll above the message box, which stays at the bottom. Regenerate (on the last
// reply) and Try again (on a failed one, saved with the chat) ask for a new answer in place of
// the last one without sending the question again; the engine keeps the earlier answers as
// versions the person can flip between. Only a message that never reached the engine is sent
// again by Try again.
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { newClientId, toApiError, type ApprovalDecision, type ChatEvent } from '../../api';
import { useApi } from '../../api/context';
import { queryKeys } from '../../api/queries';
import { useRuleProposals, useSessionMessages } from './queries';
import { ErrorNotice, Loading } from '../../components/Page';
import { Composer } from './Composer';
import { ContextMeter } from './ContextMeter';
import { fromRows, isRunning, reduce, type Item, type UserItem } from './conversation';
import { modelAnswered } from '../onboarding';
import { MessageView } from './MessageView';
import { Helpers } from './Helpers';
import { RuleProposalCard } from './RuleProposalCard';

export function Conversation({
  sessionId,
  assistantName,
  onSessionStarted,
}: {
  sessionId: string | null;
  assistantName: string;
  onSessionStarted: (id: string) => void;
}) {
  const api = useApi();
  const qc = useQueryClient();
  // Only a chat opened from the list has a stored transcript; a new one is all live.
  const [openedWith] = useState(sessionId);
  const stored = useSessionMessages(openedWith);
  const [conv, dispatch] = useReducer(reduce, { sessionId, items: [], usage: null });
  const proposals = useRuleProposals(conv.sessionId);
  const running = isRunning(conv);
  const started = useRef(onSessionStarted);
  started.current = onSessionStarted;
  const list = useRef<HTMLDivElement>(null);
  // Follows new words only while the person is at the bottom, so reading back isn't interrupted.
  const atBottom = useRef(true);

  // The transcript replaces what is shown whenever it is (re)fetched, e.g. after a reconnect.
  useEffect(() => {
    if (stored.data) dispatch({ type: 'reset', conversation: fromRows(openedWith, stored.data) });
  }, [stored.data, openedWith]);

  useEffect(() => {
    const el = list.current;
    if (el && atBottom.current) el.scrollTop = el.scrollHeight;
  }, [conv.items]);
  const onScroll = () => {
    const el = list.current;
    if (el) atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
  };

  const onEvent = useCallback(
    (event: ChatEvent) => {
      dispatch({ type: 'event', event });
      if (event.type === 'session') {
        started.current(event.session_id);
        void qc.invalidateQueries({ queryKey: queryKeys.sessions });
      }
      // The list is ordered by the latest message.
      if (event.type === 'done') void qc.invalidateQueries({ queryKey: queryKeys.sessions });
      // A model wrote a reply: the "No model set up yet" reminder is done.
      if (event.type === 'done' && event.content.trim() !== '' && !event.cancelled) modelAnswered();
    },
    [qc],
  );

  const send = (text: string, attachments: string[]) => {
    atBottom.current = true;
    const client_id = newClientId();
    const fail = (e: unknown) => dispatch({ type: 'send_failed', client_id, message: toApiError(e).detail });
    if (running && conv.sessionId) {
      dispatch({ type: 'steered', text, client_id });
      api
        .chatSteer({ session_id: conv.sessionId, text, client_id }, onEvent)
        .then((ack) => {
          if (!ack.queued) dispatch({ type: 'steer_not_queued', client_id });
        })
        .catch(fail);
      return;
    }
    dispatch({ type: 'sent', text, attachments, client_id });
    api.chatSend({ session_id: conv.sessionId, text, attachments, client_id }, onEvent).catch(fail);
  };

  const regenerate = () => {
    const sessionId = conv.sessionId;
    if (!sessionId) return;
    atBottom.current = true;
    dispatch({ type: 'regenerating' });
    // A refusal before the turn starts (a reply running elsewhere, a deleted chat) has no turn.
    let refused: string | null = null;
    api
      .chatRegenerate({ session_id: sessionId, client_id: newClientId() }, (event) => {
        if (event.type === 'error' && !event.turn_id) refused = event.message;
        else onEvent(event);
      })
      .then(() => {
        if (refused !== null) dispatch({ type: 'regenerate_refused', message: refused });
      })
      .catch((e: unknown) => dispatch({ type: 'regenerate_refused', message: toApiError(e).detail }));
  };

  const showVersion = (messageId: string, index: number) => {
    const sessionId = conv.sessionId;
    if (!sessionId) return;
    api
      .showAnswerVersion(sessionId, messageId, index)
      .then((rows) => dispatch({ type: 'reset', conversation: { ...fromRows(sessionId, rows), usage: conv.usage } }))
      .catch((e: unknown) => console.error('Could not show that version', toApiError(e).detail));
  };

  const stop = () => {
    if (conv.sessionId) api.chatCancel(conv.sessionId).catch((e: unknown) => console.error('Could not stop the reply', e));
  };

  const answer = async (approvalId: string, decision: ApprovalDecision) => {
    const { resolved } = await api.respondApproval(approvalId, decision);
    dispatch({ type: 'answered', approval_id: approvalId, outcome: resolved ? decision : 'expired' });
  };

  const loading = openedWith !== null && stored.isPending;
  const lastUser = lastUserItem(conv.items);
  const lastSent = lastUser?.text ?? null;
  // A message that never reached the engine goes again; anything it saved is answered again.
  const resend = lastUser && (lastUser.not_sent || !conv.sessionId) ? () => send(lastUser.text, lastUser.attachments) : undefined;
  const again = running ? undefined : (resend ?? (conv.sessionId ? regenerate : undefined));
  return (
    <div className="chat-conversation">
      <div className="chat-messages" aria-live="polite" data-testid="conversation" ref={list} onScroll={onScroll}>
        {loading ? <Loading label="Loading this chat…" /> : null}
        <ErrorNotice error={stored.error} prefix="Couldn't load this chat." onRetry={() => void stored.refetch()} />
        {!loading && !stored.error && conv.items.length === 0 ? (
          <p className="muted chat-hello">Ask {assistantName} anything, or hand over a job.</p>
        ) : null}
        {conv.items.map((item, i) => {
          // The newest reply can be asked again with the same words (Try again after an error).
          const last = i === conv.items.length - 1 ? again : undefined;
          const flip = item.kind === 'assistant' && item.message_id && !running ? item.message_id : null;
          return (
            <MessageView
              key={item.key}
              item={item}
              onAnswer={answer}
              onRetry={last}
              onRegenerate={last}
              onShowVersion={flip ? (index) => showVersion(flip, index) : undefined}
            />
          );
        })}
        {(proposals.data ?? []).map((p) => (
          <RuleProposalCard key={p.id} proposal={p} />
        ))}
        <Helpers sessionId={conv.sessionId} />
      </div>
      <ContextMeter usage={conv.usage} />
      <Composer running={running} disabled={loading} onSend={send} onStop={stop} lastMessage={lastSent} />
    </div>
  );
}

/** The newest message the person sent: for Up in an empty message box, Regenerate and Try again. */
function lastUserItem(items: Item[]): UserItem | null {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item.kind === 'user') return item;
  }
  return null;
}
