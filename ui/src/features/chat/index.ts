// What the chat feature offers the rest of the window: its page, the chat list in the sidebar,
// how a tool's name reads (task logs and plans show tools too), and markdown as the chat shows
// it (Memory's notes).
export { ChatListIcon } from './ChatListIcon';
export { ChatPage } from './ChatPage';
export { toolLabel } from './conversation';
export { Markdown } from './Markdown';
export { ReadableValue } from './ReadableValue';
export { ScriptOutcome, type ScriptResult } from './ScriptCard';
export { setChatsPanel, useChatsPanel } from './openChat';
export { SessionList } from './SessionList';
