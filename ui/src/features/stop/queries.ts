// Stop everything and Resume: the stop state (kept live by `stop.updated`) and the two buttons.
import { useMutation, useMutationState, useQuery, useQueryClient } from '@tanstack/react-query';
import type { StopState } from '../../api';
import { useApi } from '../../api/context';
import { toApiError, type ApiError } from '../../api/errors';
import { queryKeys, setStopState } from '../../api/queries';

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
