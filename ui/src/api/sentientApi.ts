// The window's one interface to the engine: the plain calls of calls.ts' table and the calls each
// transport writes by hand. Kept apart from types.ts, which calls.ts reads, so the api folder has
// no import circle.
import type { Calls } from './calls';
import type {
  ChatEventListener,
  ChatRegenerateRequest,
  ChatSendRequest,
  ChatSteerRequest,
  CheckupLine,
  CheckupRequest,
  EventListener,
  FileInfo,
  ImportResult,
  PullProgress,
  Roles,
} from './types';

/**
 * The calls that are not one request and one answer, so each transport writes them by hand: a
 * stream, an upload, a chat turn, live events, or an answer HTTP derives from another route.
 */
export interface SpecialCalls {
  /** Which transport this is, for diagnostics only. */
  readonly transport: 'http' | 'tauri';
  /** The model of every role as saved (null = uses the main model). */
  getRoles(): Promise<Roles>;
  /**
   * Downloads a model into Ollama, calling `onProgress` with each progress line as it arrives.
   * Resolves when the download has ended; a failure after the start is a last line with `error`.
   */
  pullModel(name: string, onProgress: (line: PullProgress) => void): Promise<void>;
  /**
   * The check-up: tries each role's model (or only `body.roles`), calling `onLine` with each line
   * as it arrives. Resolves after the last line. It changes no settings.
   */
  modelCheckup(body: CheckupRequest, onLine: (line: CheckupLine) => void): Promise<void>;
  /** Saves a file for attaching to a message; answers the name it was stored under. */
  uploadFile(file: Blob, name: string, source?: 'upload' | 'screen'): Promise<FileInfo>;
  /** A stored file's bytes (a chart the assistant drew, an upload), typed by its name. */
  fileContent(name: string): Promise<Blob>;
  /**
   * Reads facts from a PDF, Word (.docx), text or Markdown file (at most 20 MB) with the model;
   * each waits in Review. Answers the counts and the facts' source (`file:<name>`).
   */
  importMemories(file: Blob, name: string): Promise<ImportResult>;
  /**
   * Starts a turn and calls `onEvent` with each of its events (and those of a turn made of steers
   * that came too late for it). Resolves when the turn has ended.
   */
  chatSend(body: ChatSendRequest, onEvent: ChatEventListener): Promise<void>;
  /**
   * Adds words to the reply running in a chat. `queued: false` means none was running: the words
   * then start a turn of their own, whose events go to `onEvent`.
   */
  chatSteer(body: ChatSteerRequest, onEvent: ChatEventListener): Promise<{ queued: boolean }>;
  /**
   * Writes a new answer to the chat's last message in place of the last one, which stays as an
   * earlier version; the question is not sent again. Calls `onEvent` with each event of the turn
   * (a refusal, e.g. a reply still running, is an `error` event or a rejected promise).
   */
  chatRegenerate(body: ChatRegenerateRequest, onEvent: ChatEventListener): Promise<void>;
  /** Stops the reply running in a chat (its `done` then says `cancelled`). */
  chatCancel(sessionId: string): Promise<void>;
  /** Names what the window shows (the page title, and in the desktop app the window's title). */
  setTitle(title: string): void;
  /** Listen to live events; returns the function that stops listening. */
  subscribe(listener: EventListener): () => void;
}

/**
 * The window's one way to talk to the engine; two transports implement it (HTTP, Tauri). The
 * plain calls come from the table in calls.ts, the rest are SpecialCalls.
 */
export type SentientApi = Calls & SpecialCalls;
