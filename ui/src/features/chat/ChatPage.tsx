// The Chat page: the open chat, its messages above and the message box pinned to the bottom. The
// list of chats is the sidebar's second level (SessionList, under Chat); which chat is open lives
// in the address (`#/chat/<id>`). In small windows the list is a panel the Chats button opens.
import type { Bootstrap } from '../../api';
import { ChatListIcon } from './ChatListIcon';
import { Conversation } from './Conversation';
import { chatStarted, useChatsPanel, useOpenChat } from './openChat';
import './chat.css';

export function ChatPage({ bootstrap }: { bootstrap: Bootstrap }) {
  const { name, user_name } = bootstrap.assistant;
  const hello = user_name ? `Hi ${user_name}.` : 'Hi.';
  const open = useOpenChat();
  const [panel, setPanel] = useChatsPanel();
  return (
    <section className="page chat-page" aria-labelledby="page-title">
      <header className="page-header chat-page-header">
        <div>
          <h1 id="page-title">Chat</h1>
          <p className="page-intro">{`${hello} This is where you and ${name} talk.`}</p>
        </div>
        <button
          type="button"
          className="btn btn-quiet chat-list-button"
          aria-expanded={panel}
          aria-controls="chat-list"
          onClick={() => setPanel(!panel)}
        >
          <ChatListIcon />
          {panel ? 'Hide chats' : 'Your chats'}
        </button>
      </header>
      {/* `view` changes when another chat is picked, so the conversation starts fresh; a new chat
          getting its id keeps the same view (and what it shows). */}
      <Conversation key={open.view} sessionId={open.sessionId} assistantName={name} onSessionStarted={(id) => chatStarted(id, open.view)} />
    </section>
  );
}
