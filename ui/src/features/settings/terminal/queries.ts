// Settings > Terminal's reads and its one action: the terminal's status (polled while a command
// runs, so Stop disappears when it ends) and stopping a command.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { StopAnswer, TerminalStatus } from '../../../api';
import { useApi } from '../../../api/context';
import type { ApiError } from '../../../api/errors';
import { queryKeys, rejectAsApiError } from '../../../api/queries';

export function useTerminalStatus() {
  const api = useApi();
  return useQuery<TerminalStatus, ApiError>({
    queryKey: queryKeys.terminalStatus,
    queryFn: () => api.terminalStatus().catch(rejectAsApiError),
    refetchInterval: (query) => ((query.state.data?.running.length ?? 0) > 0 ? 1000 : false),
  });
}

/** Stops a command by its run id or its tool call's id. */
export function useStopCommand() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<StopAnswer, ApiError, string>({
    mutationFn: (id) => api.terminalStop({ id }).catch(rejectAsApiError),
    onSettled: () => qc.invalidateQueries({ queryKey: queryKeys.terminalStatus }),
  });
}
