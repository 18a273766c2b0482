// Where setting up a model stands, kept in this window's storage so a reload never skips the
// model step and the "No model set up yet" bar stays until a model has answered:
//   'pending'    the model step is (still) to be shown: set before onboarding is posted
//   'reopened'   the same, opened again by "Set up now": kept in memory only, so Close, Escape or
//                a reload puts back what was there before (the bar), never the step again
//   'later'      the person chose Later: the bar shows on Chat and Tasks
//   'unanswered' a model was set up but hasn't answered yet (the check-up was left early or failed)
//   null         nothing to do: a model answered, or this window never went through onboarding
import { useSyncExternalStore } from 'react';

export type ModelSetupState = 'pending' | 'reopened' | 'later' | 'unanswered';

export const MODEL_SETUP_KEY = 'sentient.model-setup';

const listeners = new Set<() => void>();

/** "Set up now" was pressed in this window and the step not closed since. */
let reopened = false;

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

function stored(): ModelSetupState | null {
  const value = storage()?.getItem(MODEL_SETUP_KEY);
  // An older window kept 'reopened' in storage: it reads as the reminder it came from.
  if (value === 'reopened') return 'later';
  return value === 'pending' || value === 'later' || value === 'unanswered' ? value : null;
}

export function readModelSetup(): ModelSetupState | null {
  return reopened ? 'reopened' : stored();
}

export function writeModelSetup(state: ModelSetupState | null): void {
  if (state === 'reopened') {
    reopened = true;
  } else {
    reopened = false;
    const store = storage();
    try {
      if (state) store?.setItem(MODEL_SETUP_KEY, state);
      else store?.removeItem(MODEL_SETUP_KEY);
    } catch {
      // A full or blocked storage only loses the reminder.
    }
  }
  for (const fn of listeners) fn();
}

/** Close (or Escape) on the step opened by "Set up now": back to the reminder it came from. */
export function closeModelSetup(): void {
  reopened = false;
  for (const fn of listeners) fn();
}

function subscribe(fn: () => void): () => void {
  listeners.add(fn);
  // Another window of the same app (or a reload elsewhere) changed it.
  const onStorage = (e: StorageEvent) => {
    if (e.key === MODEL_SETUP_KEY) fn();
  };
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(fn);
    window.removeEventListener('storage', onStorage);
  };
}

/**
 * A model answered (a chat reply, or a successful Test in Settings): the "No model set up yet"
 * reminder goes. A model step still to be shown is left as it is.
 */
export function modelAnswered(): void {
  const state = readModelSetup();
  if (state === 'later' || state === 'unanswered') writeModelSetup(null);
}

export function useModelSetup(): ModelSetupState | null {
  return useSyncExternalStore(subscribe, readModelSetup, () => null);
}
