// The Chat page: the chats on the left, the open one on the right.
import { useState } from 'react';
import type { Bootstrap } from '../../api';
import { Page } from '../../components/Page';
import { Conversation } from './Conversation';
import { SessionList } from './SessionList';
import './chat.css';

export function ChatPage({ bootstrap }: { bootstrap: Bootstrap }) {
  const { name, user_name } = bootstrap.assistant;
  const hello = user_name ? `Hi ${user_name}.` : 'Hi.';
  // `view` changes when a chat is picked, so the conversation starts fresh; a new chat getting its
  // id keeps the same view (and what it shows).
  const [open, setOpen] = useState<{ view: number; sessionId: string | null }>({ view: 0, sessionId: null });
  const pick = (sessionId: string | null) => setOpen((o) => ({ view: o.view + 1, sessionId }));
  return (
    <Page title="Chat" intro={`${hello} This is where you and ${name} talk.`}>
      <div className="chat-layout">
        <SessionList openId={open.sessionId} onOpen={(id) => pick(id)} onNew={() => pick(null)} />
        <Conversation
          key={open.view}
          sessionId={open.sessionId}
          assistantName={name}
          onSessionStarted={(id) => setOpen((o) => (o.sessionId === id ? o : { ...o, sessionId: id }))}
        />
      </div>
    </Page>
  );
}
