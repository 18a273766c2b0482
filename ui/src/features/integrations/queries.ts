// Apps and tool servers: the lists (kept live by `integration.updated`), feeds, privacy filters,
// connecting and every change. A change drops reads still on their way first (dropStaleReads).
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { OkReply } from '../../api';
import type {
  ConnectAnswer,
  FeedStatus,
  FeedSyncReply,
  FilterLists,
  Integration,
  IntegrationAccess,
  IntegrationTest,
  MailServers,
  McpServerInfo,
  McpTestResult,
  NewMcpServer,
} from '../../api/calls';
import { useApi } from '../../api/context';
import type { ApiError } from '../../api/errors';
import { dropStaleReads, putIntegration, queryKeys, rejectAsApiError } from '../../api/queries';

function isMcpServer(value: unknown): value is McpServerInfo {
  const s = value as Partial<McpServerInfo> | null;
  return !!s && typeof s.name === 'string' && typeof s.status === 'string' && Array.isArray(s.tools);
}

/** A tool server as it is now: replaced in the list, or added at its end. */
export function putMcpServer(qc: QueryClient, server: unknown): void {
  if (!isMcpServer(server)) return;
  qc.setQueryData<McpServerInfo[]>(queryKeys.mcpServers, (list) => {
    if (!list) return list;
    return list.some((s) => s.name === server.name)
      ? list.map((s) => (s.name === server.name ? server : s))
      : [...list, server];
  });
}

export function dropMcpServer(qc: QueryClient, name: string): void {
  qc.setQueryData<McpServerInfo[]>(queryKeys.mcpServers, (list) => list?.filter((s) => s.name !== name));
}

/** Every app with its state and tools; live from `integration.updated`. */
export function useIntegrations() {
  const api = useApi();
  return useQuery<Integration[], ApiError>({
    queryKey: queryKeys.integrations,
    queryFn: () => api.listIntegrations().catch(rejectAsApiError),
  });
}

/** When each app's change feed was last checked (refreshed each minute while shown). */
export function useFeeds() {
  const api = useApi();
  return useQuery<FeedStatus[], ApiError>({
    queryKey: queryKeys.feeds,
    queryFn: () => api.listFeeds().catch(rejectAsApiError),
    refetchInterval: 60_000,
  });
}

export function useMcpServers() {
  const api = useApi();
  return useQuery<McpServerInfo[], ApiError>({
    queryKey: queryKeys.mcpServers,
    queryFn: () => api.listMcpServers().catch(rejectAsApiError),
  });
}

export function usePrivacyFilters(id: string, enabled: boolean) {
  const api = useApi();
  return useQuery<FilterLists, ApiError>({
    queryKey: queryKeys.privacyFilters(id),
    queryFn: () => api.privacyFilters(id).catch(rejectAsApiError),
    enabled,
  });
}

/** Whether a connect answer asks to sign in in the browser (else it is the connected app). */
export function isSignIn(answer: ConnectAnswer): answer is Extract<ConnectAnswer, { auth_url: string }> {
  return typeof (answer as { auth_url?: unknown }).auth_url === 'string';
}

export function useConnectIntegration() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<ConnectAnswer, ApiError, { id: string; fields: Record<string, string>; access?: IntegrationAccess }>({
    onMutate: () => dropStaleReads(qc, queryKeys.integrations),
    mutationFn: ({ id, fields, access }) => api.connectIntegration(id, fields, access).catch(rejectAsApiError),
    onSuccess: (answer) => {
      // A sign-in leaves the app connecting until it finishes (then `integration.updated`).
      if (isSignIn(answer)) void qc.invalidateQueries({ queryKey: queryKeys.integrations });
      else putIntegration(qc, answer);
      void qc.invalidateQueries({ queryKey: queryKeys.feeds });
    },
    // A failed attempt shows on the app too (its status and error sentence).
    onError: () => void qc.invalidateQueries({ queryKey: queryKeys.integrations }),
  });
}

export function useDisconnectIntegration() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<Integration, ApiError, string>({
    onMutate: () => dropStaleReads(qc, queryKeys.integrations),
    mutationFn: (id) => api.disconnectIntegration(id).catch(rejectAsApiError),
    onSuccess: (app) => {
      putIntegration(qc, app);
      void qc.invalidateQueries({ queryKey: queryKeys.feeds });
      // Tasks that used the app were turned off.
      void qc.invalidateQueries({ queryKey: queryKeys.tasks });
    },
  });
}

/** Puts an app whose connect was given up on back as it was (connected, or Not connected). */
export function useCancelConnect() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<Integration, ApiError, string>({
    onMutate: () => dropStaleReads(qc, queryKeys.integrations),
    mutationFn: (id) => api.cancelConnect(id).catch(rejectAsApiError),
    onSuccess: (app) => putIntegration(qc, app),
  });
}

/** The mail servers of an address, looked up when the address is typed. */
export function useDiscoverEmail() {
  const api = useApi();
  return useMutation<MailServers, ApiError, string>({
    mutationFn: (address) => api.discoverEmail(address).catch(rejectAsApiError),
  });
}

export function useTestIntegration() {
  const api = useApi();
  return useMutation<IntegrationTest, ApiError, string>({
    mutationFn: (id) => api.testIntegration(id).catch(rejectAsApiError),
  });
}

export function useSetIntegrationAccess() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<Integration, ApiError, { id: string; access: IntegrationAccess }>({
    onMutate: () => dropStaleReads(qc, queryKeys.integrations),
    mutationFn: ({ id, access }) => api.setIntegrationAccess(id, access).catch(rejectAsApiError),
    onSuccess: (app) => putIntegration(qc, app),
  });
}

export function useSetPrivacyFilters() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<FilterLists, ApiError, { id: string; filters: FilterLists }>({
    // The engine saves the lists cleaned (trimmed, lower-cased, no repeats): read them back.
    mutationFn: async ({ id, filters }) => {
      await api.setPrivacyFilters(id, filters).catch(rejectAsApiError);
      return api.privacyFilters(id).catch(rejectAsApiError);
    },
    onSuccess: (filters, { id }) => qc.setQueryData(queryKeys.privacyFilters(id), filters),
  });
}

export function useSyncFeed() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<FeedSyncReply, ApiError, string>({
    mutationFn: (source) => api.syncFeed(source).catch(rejectAsApiError),
    onSettled: () => qc.invalidateQueries({ queryKey: queryKeys.feeds }),
  });
}

/** Adds a tool server; the engine answers once it connected or 15 s passed. */
export function useAddMcpServer() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<McpServerInfo, ApiError, NewMcpServer>({
    mutationFn: (server) => api.addMcpServer(server).catch(rejectAsApiError),
    onSuccess: (server) => {
      putMcpServer(qc, server);
      void qc.invalidateQueries({ queryKey: queryKeys.mcpServers });
      void qc.invalidateQueries({ queryKey: queryKeys.integrations });
    },
  });
}

export function useRemoveMcpServer() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<OkReply, ApiError, string>({
    onMutate: () => dropStaleReads(qc, queryKeys.mcpServers),
    mutationFn: (name) => api.removeMcpServer(name).catch(rejectAsApiError),
    onSuccess: (_ok, name) => {
      dropMcpServer(qc, name);
      void qc.invalidateQueries({ queryKey: queryKeys.integrations });
    },
  });
}

export function useSetMcpAccess() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<McpServerInfo, ApiError, { name: string; access: IntegrationAccess }>({
    onMutate: () => dropStaleReads(qc, queryKeys.mcpServers),
    mutationFn: ({ name, access }) => api.setMcpAccess(name, access).catch(rejectAsApiError),
    onSuccess: (server) => putMcpServer(qc, server),
  });
}

export function useSetMcpEnabled() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<McpServerInfo, ApiError, { name: string; enabled: boolean }>({
    onMutate: () => dropStaleReads(qc, queryKeys.mcpServers),
    mutationFn: ({ name, enabled }) => api.setMcpEnabled(name, enabled).catch(rejectAsApiError),
    onSuccess: (server) => putMcpServer(qc, server),
  });
}

export function useSetMcpValues() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<McpServerInfo, ApiError, { name: string; values: Record<string, string>; enable?: boolean }>({
    onMutate: () => dropStaleReads(qc, queryKeys.mcpServers),
    mutationFn: ({ name, values, enable }) => api.setMcpValues(name, values, enable).catch(rejectAsApiError),
    onSuccess: (server) => putMcpServer(qc, server),
  });
}

export function useTestMcpServer() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<McpTestResult, ApiError, string>({
    mutationFn: (name) => api.testMcpServer(name).catch(rejectAsApiError),
    // A test connects, so the server's state may have changed.
    onSettled: () => qc.invalidateQueries({ queryKey: queryKeys.mcpServers }),
  });
}
