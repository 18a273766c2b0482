// The browser's status (kept current by `browser.updated`, with the page waiting for the person in
// `needs_you`), opening a profile as a window for the person, the newest picture of the page
// (`browser.frame`), and what the person does in the live view.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { BrowserFrame } from '../../bindings';
import type { BrowserStatus, OkReply, PersonInput } from '../../api';
import { useApi } from '../../api/context';
import type { ApiError } from '../../api/errors';
import { queryKeys, rejectAsApiError } from '../../api/queries';

export function useBrowserStatus() {
  const api = useApi();
  return useQuery<BrowserStatus, ApiError>({
    queryKey: queryKeys.browserStatus,
    queryFn: () => api.browserStatus().catch(rejectAsApiError),
  });
}

/** Opens a profile as a window the person signs in with; the answer is the new status. */
export function useOpenBrowser() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<BrowserStatus, ApiError, string>({
    mutationFn: (profile) => api.openBrowser(profile).catch(rejectAsApiError),
    onSuccess: (status) => {
      qc.setQueryData(queryKeys.browserStatus, status);
      void qc.invalidateQueries({ queryKey: queryKeys.browserProfiles });
    },
  });
}

/** The newest picture of the browser's page; only `browser.frame` events fill it (nothing to fetch). */
export function useBrowserFrame() {
  return useQuery<BrowserFrame | null>({
    queryKey: queryKeys.browserFrame,
    queryFn: () => null,
    staleTime: Infinity,
  });
}

export function useBrowserInput() {
  const api = useApi();
  return useMutation<OkReply, ApiError, PersonInput>({
    mutationFn: (input) => api.browserInput(input).catch(rejectAsApiError),
  });
}
