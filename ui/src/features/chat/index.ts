// What the chat feature offers the rest of the window: its page, the chat list in the sidebar,
// and how a tool's name reads (task logs and plans show tools too).
export { ChatListIcon } from './ChatListIcon';
export { ChatPage } from './ChatPage';
export { toolLabel } from './conversation';
export { setChatsPanel, useChatsPanel } from './openChat';
export { SessionList } from './SessionList';
