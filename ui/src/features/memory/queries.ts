// The Memory page's data: every query sits under queryKeys.memory, so one `memory.updated`
// (applyEvent in api/queries.ts) refreshes facts, topics, the map and the review inbox at once.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { MemoryQuery, NotesFileName, ReviewKind } from '../../api';
import { useApi } from '../../api/context';
import { toApiError, type ApiError } from '../../api/errors';
import { queryKeys } from '../../api/queries';

const key = (...parts: unknown[]) => [...queryKeys.memory, ...parts];

export function useMemories(query: MemoryQuery) {
  const api = useApi();
  return useQuery({ queryKey: key('facts', query), queryFn: () => api.listMemories(query) });
}

export function useMemoryTopics() {
  const api = useApi();
  return useQuery({ queryKey: key('topics'), queryFn: () => api.memoryTopics() });
}

export function useMemoryGraph(enabled: boolean) {
  const api = useApi();
  return useQuery({ queryKey: key('graph'), queryFn: () => api.memoryGraph(), enabled });
}

export function useMemoryReview() {
  const api = useApi();
  return useQuery({ queryKey: key('review'), queryFn: () => api.memoryReview() });
}

export function useMemorySummaries(enabled: boolean) {
  const api = useApi();
  return useQuery({ queryKey: key('summaries'), queryFn: () => api.memorySummaries(100), enabled });
}

export function useMemoryWorkspace(enabled: boolean) {
  const api = useApi();
  return useQuery({ queryKey: key('workspace'), queryFn: () => api.memoryWorkspace(), enabled });
}

export function useMemoryPersonas(enabled: boolean) {
  const api = useApi();
  return useQuery({ queryKey: key('personas'), queryFn: () => api.memoryPersonas(), enabled });
}

/** Every memory change: refresh all memory queries when it is done (the event does too). */
function useMemoryMutation<A, R>(run: (args: A) => Promise<R>) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: run,
    onSettled: () => qc.invalidateQueries({ queryKey: queryKeys.memory }),
  });
}

export function useAddMemory() {
  const api = useApi();
  return useMemoryMutation((content: string) => api.createMemory(content));
}

export function useEditMemory() {
  const api = useApi();
  return useMemoryMutation(({ id, content }: { id: number; content: string }) => api.updateMemory(id, content));
}

export function useDeleteMemory() {
  const api = useApi();
  return useMemoryMutation((id: number) => api.deleteMemory(id));
}

export function useForgetSource() {
  const api = useApi();
  return useMemoryMutation((source: string) => api.deleteMemorySource(source));
}

export function useApproveMemory() {
  const api = useApi();
  return useMemoryMutation(({ kind, id, content }: { kind: ReviewKind; id: number | string; content?: string }) =>
    api.approveMemory(kind, id, content),
  );
}

export function useDiscardMemory() {
  const api = useApi();
  return useMemoryMutation(({ kind, id }: { kind: ReviewKind; id: number | string }) => api.discardMemory(kind, id));
}

export function useApproveAllMemories() {
  const api = useApi();
  return useMemoryMutation((from: string) => api.approveAllMemories(from));
}

/**
 * Reads facts from a file (every one waits in Review); the facts, topics and review inbox refresh
 * when it is done.
 */
export function useImportMemories() {
  const api = useApi();
  return useMemoryMutation(({ file, name }: { file: Blob; name: string }) => api.importMemories(file, name));
}

export function useSaveNotes() {
  const api = useApi();
  return useMemoryMutation(({ name, content }: { name: NotesFileName; content: string }) =>
    api.saveMemoryWorkspace(name, content),
  );
}

/** An error as the page shows it; the engine's 503 already says to run `sentient doctor`. */
export function asError(error: unknown): ApiError | null {
  return error ? toApiError(error) : null;
}
