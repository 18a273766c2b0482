// Devices: the list (kept live by `node.*`), the LAN listener, pairing, and asking a device to do
// one thing. Settings > Devices reads the LAN state through this feature's index.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { InvokeReply, InvokeRequest, LanStatus, Node, OkReply, Pairing } from '../../api';
import { useApi } from '../../api/context';
import type { ApiError } from '../../api/errors';
import { dropNode, putNode, queryKeys, rejectAsApiError, sortNodes } from '../../api/queries';

/** Every device, online ones first; live from `node.updated` and `node.deleted`. */
export function useNodes() {
  const api = useApi();
  return useQuery<Node[], ApiError>({
    queryKey: queryKeys.nodes,
    queryFn: async () => sortNodes(await api.listNodes().catch(rejectAsApiError)),
  });
}

/**
 * Whether phones on the network can reach Sentient (the LAN listener). `refetchInterval` polls
 * while a change of the settings is still being applied (the engine starts the listener after it
 * answers, and publishes no event when it is up).
 */
export function useLanStatus(options: { refetchInterval?: number | false } = {}) {
  const api = useApi();
  return useQuery<LanStatus, ApiError>({
    queryKey: queryKeys.lan,
    queryFn: () => api.lanStatus().catch(rejectAsApiError),
    refetchInterval: options.refetchInterval ?? false,
  });
}

/** A new single-use pairing code (each click makes a fresh one). */
export function useCreatePairing() {
  const api = useApi();
  return useMutation<Pairing, ApiError, void>({
    mutationFn: () => api.createPairing().catch(rejectAsApiError),
  });
}

export function useRenameNode() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<Node, ApiError, { id: string; name: string }>({
    mutationFn: ({ id, name }) => api.renameNode(id, name).catch(rejectAsApiError),
    onSuccess: (node) => putNode(qc, node),
  });
}

export function useDeleteNode() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<OkReply, ApiError, string>({
    mutationFn: (id) => api.deleteNode(id).catch(rejectAsApiError),
    onSuccess: (_ok, id) => dropNode(qc, id),
  });
}

/** Asks a device to do one thing; the reply (which may be `ok: false`) is the mutation's data. */
export function useInvokeNode(nodeId: string) {
  const api = useApi();
  return useMutation<InvokeReply, ApiError, InvokeRequest>({
    mutationFn: (body) => api.invokeNode(nodeId, body).catch(rejectAsApiError),
  });
}
