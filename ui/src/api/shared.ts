// The hooks more than one area reads: the start-up answer, the settings and their change, and
// a model download (Settings, onboarding and an error's "Download" button all start one).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useRef, useState } from 'react';
import { useApi } from './context';
import { toApiError, type ApiError } from './errors';
import { dropStaleReads, queryKeys } from './queries';
import type { Bootstrap, PullProgress } from './types';

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
    onMutate: () => dropStaleReads(qc, queryKeys.config),
    mutationFn: (partial) => api.patchConfig(partial).catch((e: unknown) => Promise.reject(toApiError(e))),
    onSuccess: async (res) => {
      const config = (res as { config?: unknown } | undefined)?.config;
      if (config) qc.setQueryData(queryKeys.config, config);
      await qc.invalidateQueries({ queryKey: queryKeys.bootstrap });
      await qc.invalidateQueries({ queryKey: queryKeys.sandboxStatus });
      await qc.invalidateQueries({ queryKey: queryKeys.terminalStatus });
    },
  });
}

/** Where an Ollama download is: the latest progress line, and how it ended. */
export type PullState =
  | { phase: 'idle' }
  | { phase: 'pulling'; name: string; status: string; percent: number | null }
  | { phase: 'done'; name: string }
  | { phase: 'failed'; name: string; error: string };

/** The percent done of a progress line (null while Ollama hasn't said how big it is). */
export function pullPercent(line: Pick<PullProgress, 'completed' | 'total'>): number | null {
  const { completed, total } = line;
  if (typeof completed !== 'number' || typeof total !== 'number' || total <= 0) return null;
  return Math.max(0, Math.min(100, Math.floor((completed / total) * 100)));
}

/**
 * Downloads one model into Ollama at a time, following its progress. When it ends, the list of
 * installed models is fetched again.
 */
export function usePullModel() {
  const api = useApi();
  const qc = useQueryClient();
  const [state, setState] = useState<PullState>({ phase: 'idle' });
  const running = useRef(false);

  const start = useCallback(
    async (raw: string) => {
      const name = raw.trim();
      if (!name || running.current) return;
      running.current = true;
      setState({ phase: 'pulling', name, status: 'Starting the download…', percent: null });
      let error: string | null = null;
      try {
        await api.pullModel(name, (line) => {
          if (line.error || line.status === 'error') {
            error = line.error || 'Ollama could not download it.';
            return;
          }
          setState((prev) => {
            const percent = pullPercent(line);
            const kept = prev.phase === 'pulling' && percent === null && line.status === prev.status ? prev.percent : percent;
            return { phase: 'pulling', name, status: line.status || (prev.phase === 'pulling' ? prev.status : ''), percent: kept };
          });
        });
      } catch (e) {
        error = toApiError(e).detail;
      } finally {
        running.current = false;
      }
      setState(error ? { phase: 'failed', name, error } : { phase: 'done', name });
      await qc.invalidateQueries({ queryKey: queryKeys.localModels });
    },
    [api, qc],
  );

  return { state, start, busy: state.phase === 'pulling' };
}
