// Chats: the list, search, a transcript, renaming and deleting, "Make this a rule?" cards and
// attachments. A chat's live turn comes through the api's chat calls, not the cache.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FileInfo, MessageRow, OkReply, RuleDecision, RuleProposal, SearchHit, Session } from '../../api';
import { useApi } from '../../api/context';
import type { ApiError } from '../../api/errors';
import { applyRuleProposal, applySessionUpdated, queryKeys, rejectAsApiError } from '../../api/queries';

export function useSessions() {
  const api = useApi();
  return useQuery<Session[], ApiError>({
    queryKey: queryKeys.sessions,
    queryFn: () => api.listSessions(100).catch(rejectAsApiError),
  });
}

/** Search across every chat; nothing is asked until there are words. */
export function useSessionSearch(q: string) {
  const api = useApi();
  const words = q.trim();
  return useQuery<SearchHit[], ApiError>({
    queryKey: queryKeys.sessionSearch(words),
    queryFn: () => api.searchSessions(words).catch(rejectAsApiError),
    enabled: words !== '',
  });
}

/**
 * A chat's stored transcript. Fetched when the chat is opened; what happens after that arrives
 * as live events, so it is not fetched again on its own.
 */
export function useSessionMessages(sessionId: string | null) {
  const api = useApi();
  return useQuery<MessageRow[], ApiError>({
    queryKey: queryKeys.messages(sessionId ?? ''),
    queryFn: () => api.sessionMessages(sessionId ?? '', 500).catch(rejectAsApiError),
    enabled: sessionId !== null,
    staleTime: Infinity,
    gcTime: 0,
    refetchOnWindowFocus: false,
  });
}

export function useRenameSession() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<OkReply, ApiError, { id: string; title: string }>({
    mutationFn: ({ id, title }) => api.renameSession(id, title).catch(rejectAsApiError),
    onSuccess: (_res, { id, title }) => applySessionUpdated(qc, { session_id: id, title }),
  });
}

export function useDeleteSession() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<OkReply, ApiError, string>({
    mutationFn: (id) => api.deleteSession(id).catch(rejectAsApiError),
    onSuccess: (_res, id) => {
      qc.setQueryData<Session[]>(queryKeys.sessions, (list) => list?.filter((s) => s.id !== id));
      qc.removeQueries({ queryKey: queryKeys.messages(id) });
      void qc.invalidateQueries({ queryKey: ['sessions', 'search'] });
    },
  });
}

/** A chat's "Make this a rule?" cards: pending ones, plus any answered while it is open. */
export function useRuleProposals(sessionId: string | null) {
  const api = useApi();
  return useQuery<RuleProposal[], ApiError>({
    queryKey: queryKeys.ruleProposals(sessionId ?? ''),
    queryFn: () => api.ruleProposals(sessionId ?? '', 'pending').catch(rejectAsApiError),
    enabled: sessionId !== null,
  });
}

export function useDecideRuleProposal() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<RuleProposal, ApiError, { id: string; decision: RuleDecision }>({
    mutationFn: ({ id, decision }) => api.decideRuleProposal(id, decision).catch(rejectAsApiError),
    onSuccess: (p) => applyRuleProposal(qc, p),
  });
}

/** Uploads a file to attach to a message; answers the name it was stored under. */
export function useUploadFile() {
  const api = useApi();
  return useMutation<FileInfo, ApiError, File>({
    mutationFn: (file) => api.uploadFile(file, file.name, 'upload').catch(rejectAsApiError),
  });
}
