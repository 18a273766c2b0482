// The shapes that cross the door. They come from the generated bindings (Rust types through
// tauri-specta), so the window and the engine can't drift apart; this is the one file to touch
// if a generated name changes.
// The generator gives each type two views: `_Serialize` is what the engine sends (every field
// present), `_Deserialize` what it accepts (defaulted fields optional).
import type {
  Bootstrap_Serialize,
  Config_Serialize,
  Health,
  OnboardingDone,
  OnboardingRequest_Deserialize,
  SavedConfig_Serialize,
  StopResult_Serialize,
  StopState_Serialize,
} from '../bindings';

export type { Health, Theme } from '../bindings';
export type { Value as JsonValue } from '../bindings';
export type Bootstrap = Bootstrap_Serialize;
export type Config = Config_Serialize;
export type OnboardingRequest = OnboardingRequest_Deserialize;
export type StopState = StopState_Serialize;
type StopResult = StopResult_Serialize;
type SavedConfig = SavedConfig_Serialize;
export type OkResponse = OnboardingDone;
export type StopAllResponse = StopResult;
export type PatchConfigResponse = SavedConfig;

/**
 * One live event from the engine's bus: `{type, data, ts}`. Domain events have a dotted type
 * (`stop.updated`, `config.updated`, ...). Chat events (no dot) arrive flat on the socket; the HTTP
 * transport wraps them so `data` is the whole message. The window also hears a few events it
 * makes itself about the live connection: `hello` (connected, `data` is the hello message) and
 * `connection.lost`.
 */
export type EngineEvent = { type: string; data: unknown; ts: string };

export type EventListener = (ev: EngineEvent) => void;

/** Where a stop or resume came from (the contract's StopState.source). */
export type StopSource = 'desktop' | 'tray' | 'hotkey' | 'telegram' | 'discord' | 'device' | string;

/** The window's one way to talk to the engine; two transports implement it (HTTP, Tauri). */
export interface SentientApi {
  /** Which transport this is, for diagnostics only. */
  readonly transport: 'http' | 'tauri';
  health(): Promise<Health>;
  bootstrap(): Promise<Bootstrap>;
  onboarding(body: OnboardingRequest): Promise<OkResponse>;
  getStop(): Promise<StopState>;
  stopAll(source?: StopSource): Promise<StopAllResponse>;
  resume(source?: StopSource): Promise<StopState>;
  getConfig(): Promise<Config>;
  patchConfig(partial: Record<string, unknown>): Promise<PatchConfigResponse>;
  /** Names what the window shows (the page title, and in the desktop app the window's title). */
  setTitle(title: string): void;
  /** Listen to live events; returns the function that stops listening. */
  subscribe(listener: EventListener): () => void;
}
