// Settings > Browser's reads and changes: the browser's status (kept current by `browser.updated`),
// the profiles, and opening, closing, adding, changing and deleting them.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { BrowserProfileChange, BrowserProfiles, BrowserStatus, NewBrowserProfile } from '../../../api';
import { useApi } from '../../../api/context';
import type { ApiError } from '../../../api/errors';
import { queryKeys, rejectAsApiError } from '../../../api/queries';

// The status and Open browser are the browser feature's; this page uses them too.
export { useBrowserStatus, useOpenBrowser } from '../../browser';

export function useBrowserProfiles() {
  const api = useApi();
  return useQuery<BrowserProfiles, ApiError>({
    queryKey: queryKeys.browserProfiles,
    queryFn: () => api.browserProfiles().catch(rejectAsApiError),
  });
}

export function useCloseBrowser() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<BrowserStatus, ApiError, void>({
    mutationFn: () => api.closeBrowser().catch(rejectAsApiError),
    onSuccess: (status) => {
      qc.setQueryData(queryKeys.browserStatus, status);
      void qc.invalidateQueries({ queryKey: queryKeys.browserProfiles });
    },
  });
}

/** Each change answers with the whole list, which replaces the cached one. */
function useProfileChange<V>(change: (v: V) => Promise<BrowserProfiles>) {
  const qc = useQueryClient();
  return useMutation<BrowserProfiles, ApiError, V>({
    mutationFn: (v) => change(v).catch(rejectAsApiError),
    onSuccess: (list) => {
      qc.setQueryData(queryKeys.browserProfiles, list);
      // Profiles are settings: the settings and the tasks that name one follow.
      void qc.invalidateQueries({ queryKey: queryKeys.config });
      void qc.invalidateQueries({ queryKey: queryKeys.tasks });
    },
  });
}

export function useAddBrowserProfile() {
  const api = useApi();
  return useProfileChange((body: NewBrowserProfile) => api.addBrowserProfile(body));
}

export function useChangeBrowserProfile() {
  const api = useApi();
  return useProfileChange(({ name, change }: { name: string; change: BrowserProfileChange }) => api.changeBrowserProfile(name, change));
}

export function useDeleteBrowserProfile() {
  const api = useApi();
  return useProfileChange((name: string) => api.deleteBrowserProfile(name));
}
