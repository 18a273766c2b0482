// Settings' own reads: the settings' schema, whether scripts can run, and the webhooks (the task
// editor lists them too, through this feature's index). The settings themselves are in
// api/shared.ts, since every area reads them.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Hook, NewHook, OkReply, SandboxStatus } from '../../api';
import type { ConfigSchema } from '../../api/calls';
import { useApi } from '../../api/context';
import { toApiError, type ApiError } from '../../api/errors';
import { queryKeys, rejectAsApiError } from '../../api/queries';

/** The settings' JSON schema; it only changes with a new version, so it is read once. */
export function useConfigSchema() {
  const api = useApi();
  return useQuery<ConfigSchema, ApiError>({
    queryKey: queryKeys.configSchema,
    queryFn: () => api.configSchema().catch((e: unknown) => Promise.reject(toApiError(e))),
    staleTime: Infinity,
  });
}

/** Whether scripts can run here; read again when the settings change (on/off, the backend). */
export function useSandboxStatus() {
  const api = useApi();
  return useQuery<SandboxStatus, ApiError>({
    queryKey: queryKeys.sandboxStatus,
    queryFn: () => api.sandboxStatus().catch((e: unknown) => Promise.reject(toApiError(e))),
  });
}

// ------------------------------------------------------------------------------ webhooks

export function useHooks() {
  const api = useApi();
  return useQuery<Hook[], ApiError>({
    queryKey: queryKeys.hooks,
    queryFn: () => api.listHooks().catch(rejectAsApiError),
    // Calls arrive without an event of their own; keep the counts reasonably fresh.
    refetchInterval: 15_000,
  });
}

export function useCreateHook() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<NewHook, ApiError, string>({
    mutationFn: (name) => api.createHook(name).catch(rejectAsApiError),
    onSuccess: (made) => {
      const { secret: _secret, ...hook } = made;
      qc.setQueryData<Hook[]>(queryKeys.hooks, (list) => (list ? [...list.filter((h) => h.id !== hook.id), hook] : list));
      void qc.invalidateQueries({ queryKey: queryKeys.hooks });
    },
  });
}

export function useDeleteHook() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<OkReply, ApiError, string>({
    mutationFn: (id) => api.deleteHook(id).catch(rejectAsApiError),
    onSuccess: (_ok, id) => qc.setQueryData<Hook[]>(queryKeys.hooks, (list) => list?.filter((h) => h.id !== id)),
  });
}
