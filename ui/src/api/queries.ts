// Server state: every view reads the engine through these hooks, and `applyEvent` is the one
// place where live bus events update the cache, so every view stays current without reloading.
import {
  QueryClient,
  useMutation,
  useMutationState,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useApi } from './context';
import { ApiError, toApiError, UNREACHABLE } from './errors';
import type { Bootstrap, EngineEvent, OnboardingRequest, StopState } from './types';

export const queryKeys = {
  bootstrap: ['bootstrap'] as const,
  /** Mutation key shared by Stop everything and Resume, so their last error can be shown once. */
  stopControl: ['stop-control'] as const,
  stop: ['stop'] as const,
  config: ['config'] as const,
};

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        // Only retry when the engine didn't answer; a plain "no" from the engine won't change.
        retry: (count, error) => toApiError(error).status === UNREACHABLE && count < 2,
      },
      mutations: { retry: false },
    },
  });
}

function asStopState(value: unknown): StopState | null {
  if (!value || typeof value !== 'object') return null;
  const v = value as Partial<StopState>;
  if (typeof v.stopped !== 'boolean') return null;
  return { stopped: v.stopped, stopped_at: v.stopped_at ?? null, source: v.source ?? null };
}

/** Puts a new stop state everywhere it is shown (the stop query and bootstrap's copy). */
export function setStopState(qc: QueryClient, value: unknown): void {
  const stop = asStopState(value);
  if (!stop) return;
  qc.setQueryData<StopState>(queryKeys.stop, stop);
  qc.setQueryData<Bootstrap>(queryKeys.bootstrap, (b) => (b ? { ...b, stop } : b));
}

/** Applies one live event to the cache. */
export function applyEvent(qc: QueryClient, ev: EngineEvent): void {
  switch (ev.type) {
    case 'stop.updated':
      setStopState(qc, ev.data);
      break;
    case 'config.updated':
      void qc.invalidateQueries({ queryKey: queryKeys.config });
      void qc.invalidateQueries({ queryKey: queryKeys.bootstrap });
      break;
    default:
      // Unread count lives in bootstrap.
      if (ev.type.startsWith('notification.')) void qc.invalidateQueries({ queryKey: queryKeys.bootstrap });
  }
}

/**
 * Listens to the engine for as long as the app is open. Returns whether the live connection was
 * lost (and not yet back); after it comes back, everything is fetched again in case events
 * were missed meanwhile.
 */
export function useLiveEvents(): { lost: boolean } {
  const api = useApi();
  const qc = useQueryClient();
  const [lost, setLost] = useState(false);
  const lostRef = useRef(false);

  useEffect(() => {
    return api.subscribe((ev) => {
      if (ev.type === 'connection.lost') {
        lostRef.current = true;
        setLost(true);
        return;
      }
      if (ev.type === 'hello') {
        if (lostRef.current) {
          lostRef.current = false;
          setLost(false);
          void qc.invalidateQueries();
        }
        return;
      }
      applyEvent(qc, ev);
    });
  }, [api, qc]);

  return { lost };
}

export function useBootstrap() {
  const api = useApi();
  const qc = useQueryClient();
  return useQuery<Bootstrap, ApiError>({
    queryKey: queryKeys.bootstrap,
    queryFn: async () => {
      const asked = Date.now();
      const b = await api.bootstrap().catch((e: unknown) => Promise.reject(toApiError(e)));
      // Seed the stop state, unless a newer one (an event, a click) arrived meanwhile.
      const current = qc.getQueryState(queryKeys.stop);
      if (!current?.data || current.dataUpdatedAt <= asked) qc.setQueryData(queryKeys.stop, b.stop);
      return b;
    },
  });
}

export function useStopState() {
  const api = useApi();
  return useQuery<StopState, ApiError>({
    queryKey: queryKeys.stop,
    queryFn: () => api.getStop().catch((e: unknown) => Promise.reject(toApiError(e))),
  });
}

export function useStopAll() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<StopState, ApiError, void>({
    mutationKey: queryKeys.stopControl,
    mutationFn: () => api.stopAll('desktop').catch((e: unknown) => Promise.reject(toApiError(e))),
    onSuccess: (state) => setStopState(qc, state),
  });
}

export function useResume() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<StopState, ApiError, void>({
    mutationKey: queryKeys.stopControl,
    mutationFn: () => api.resume('desktop').catch((e: unknown) => Promise.reject(toApiError(e))),
    onSuccess: (state) => setStopState(qc, state),
  });
}

/** The error of the latest Stop everything / Resume click, if that click failed. */
export function useStopControlError(): ApiError | null {
  const states = useMutationState({
    filters: { mutationKey: queryKeys.stopControl },
    select: (m) => ({ status: m.state.status, error: m.state.error, at: m.state.submittedAt }),
  });
  const latest = states.reduce<(typeof states)[number] | null>((a, b) => (!a || b.at >= a.at ? b : a), null);
  return latest?.status === 'error' ? toApiError(latest.error) : null;
}

export function useOnboarding() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<unknown, ApiError, OnboardingRequest>({
    mutationFn: (body) => api.onboarding(body).catch((e: unknown) => Promise.reject(toApiError(e))),
    onSuccess: async (_res, body) => {
      // Show the app at once, then fetch what the engine made of it.
      qc.setQueryData<Bootstrap>(queryKeys.bootstrap, (b) =>
        b
          ? {
              ...b,
              assistant: {
                ...b.assistant,
                name: body.assistant_name || b.assistant.name,
                user_name: body.user_name,
                timezone: body.timezone ?? b.assistant.timezone,
                location: body.location ?? b.assistant.location,
                onboarding_complete: true,
              },
            }
          : b,
      );
      await qc.invalidateQueries({ queryKey: queryKeys.bootstrap });
    },
  });
}

export function useConfig() {
  const api = useApi();
  return useQuery({
    queryKey: queryKeys.config,
    queryFn: () => api.getConfig().catch((e: unknown) => Promise.reject(toApiError(e))),
  });
}

export function usePatchConfig() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<unknown, ApiError, Record<string, unknown>>({
    mutationFn: (partial) => api.patchConfig(partial).catch((e: unknown) => Promise.reject(toApiError(e))),
    onSuccess: async (res) => {
      const config = (res as { config?: unknown } | undefined)?.config;
      if (config) qc.setQueryData(queryKeys.config, config);
      await qc.invalidateQueries({ queryKey: queryKeys.bootstrap });
    },
  });
}
