// Models & secrets, presets and the check-up: what Settings > Models and onboarding's model step
// read and change (onboarding through the settings feature's index).
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback, useRef, useState } from 'react';
import type {
  CheckStatus,
  CheckupLine,
  CheckupRequest,
  EmbeddingTestResult,
  Hardware,
  LocalAddress,
  LocalModels,
  LocalServer,
  ModelBusy,
  OkReply,
  Preset,
  PresetList,
  PresetSwitch,
  ProviderView,
  RoleChanges,
  RolePick,
  RoleResult,
  Roles,
  SavePresetRequest,
  SecretInfo,
  SecretStore,
  StoreChanged,
  StoreStatus,
  TestResult,
} from '../../../api';
import { useApi } from '../../../api/context';
import { toApiError, type ApiError } from '../../../api/errors';
import { queryKeys, rejectAsApiError } from '../../../api/queries';

export function useModelProviders() {
  const api = useApi();
  return useQuery<ProviderView[], ApiError>({
    queryKey: queryKeys.providers,
    queryFn: () => api.modelProviders().catch(rejectAsApiError),
  });
}

export function useLocalModels() {
  const api = useApi();
  return useQuery<LocalModels, ApiError>({
    queryKey: queryKeys.localModels,
    queryFn: () => api.localModels().catch(rejectAsApiError),
    // Ollama can be started or stopped outside Sentient; look again now and then.
    refetchInterval: 30_000,
  });
}

/** Saves Ollama's or LM Studio's address; the engine checks that it answers before saving. */
export function useSetLocalAddress() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<LocalServer, ApiError, LocalAddress>({
    mutationFn: (body) => api.setLocalAddress(body).catch(rejectAsApiError),
    onSuccess: async () => {
      await Promise.all([
        qc.invalidateQueries({ queryKey: queryKeys.localModels }),
        qc.invalidateQueries({ queryKey: queryKeys.providers }),
        qc.invalidateQueries({ queryKey: queryKeys.config }),
      ]);
    },
  });
}

export function useRoles() {
  const api = useApi();
  return useQuery<Roles, ApiError>({
    queryKey: queryKeys.roles,
    queryFn: () => api.getRoles().catch(rejectAsApiError),
  });
}

export function useSetRoles() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<Roles, ApiError, RoleChanges>({
    mutationFn: (changes) => api.setRoles(changes).catch(rejectAsApiError),
    onSuccess: async (roles) => {
      qc.setQueryData(queryKeys.roles, roles);
      await Promise.all([
        qc.invalidateQueries({ queryKey: queryKeys.config }),
        qc.invalidateQueries({ queryKey: queryKeys.bootstrap }),
        // A role changed by hand marks the active preset as modified.
        qc.invalidateQueries({ queryKey: queryKeys.presets }),
      ]);
    },
  });
}

/** Tries a model: a chat model with one tool call, an embedding model with one embedding. */
export type ModelTest = { kind: 'chat'; result: TestResult } | { kind: 'embedding'; result: EmbeddingTestResult };

export function useTestModel() {
  const api = useApi();
  return useMutation<ModelTest, ApiError, { model: string; role: string }>({
    // Kept for the window's lifetime: the "No model set up yet" bar reads a successful Test from it.
    mutationKey: queryKeys.modelTest,
    gcTime: Infinity,
    mutationFn: async ({ model, role }) => {
      try {
        if (role === 'embedding') return { kind: 'embedding', result: await api.testEmbedding({ model }) };
        return { kind: 'chat', result: await api.testModel({ model, role }) };
      } catch (e) {
        throw toApiError(e);
      }
    },
  });
}

export function useModelBusy() {
  const api = useApi();
  return useQuery<ModelBusy, ApiError>({
    queryKey: queryKeys.modelBusy,
    queryFn: () => api.modelBusy().catch(rejectAsApiError),
    // Kept current by the model.busy event.
    staleTime: Infinity,
  });
}

export function useHardware() {
  const api = useApi();
  return useQuery<Hardware, ApiError>({
    queryKey: queryKeys.hardware,
    queryFn: () => api.hardware(false).catch(rejectAsApiError),
    staleTime: Infinity,
  });
}

export function useSecrets() {
  const api = useApi();
  return useQuery<SecretInfo[], ApiError>({
    queryKey: queryKeys.secrets,
    queryFn: () => api.listSecrets().catch(rejectAsApiError),
  });
}

async function refreshKeys(qc: QueryClient) {
  await Promise.all([
    qc.invalidateQueries({ queryKey: queryKeys.secrets }),
    qc.invalidateQueries({ queryKey: queryKeys.providers }),
    qc.invalidateQueries({ queryKey: queryKeys.presets }),
  ]);
}

export function useSetSecret() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<OkReply, ApiError, { name: string; value: string }>({
    mutationFn: ({ name, value }) => api.setSecret(name, value).catch(rejectAsApiError),
    onSuccess: () => refreshKeys(qc),
  });
}

/** Where keys are kept and whether the keychain works; each fetch asks the keychain again. */
export function useSecretsStore(enabled = true) {
  const api = useApi();
  return useQuery<StoreStatus, ApiError>({
    queryKey: queryKeys.secretsStore,
    queryFn: () => api.secretsStore().catch(rejectAsApiError),
    enabled,
  });
}

/** Chooses the private file, or moves every key into the keychain. */
export function useChooseSecretsStore() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<StoreChanged, ApiError, SecretStore>({
    mutationFn: (store) => api.chooseSecretsStore(store).catch(rejectAsApiError),
    onSuccess: async (changed) => {
      qc.setQueryData(queryKeys.secretsStore, changed.status);
      await refreshKeys(qc);
    },
  });
}

export function useDeleteSecret() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<OkReply, ApiError, string>({
    mutationFn: (name) => api.deleteSecret(name).catch(rejectAsApiError),
    onSuccess: () => refreshKeys(qc),
  });
}

export function useModelPresets() {
  const api = useApi();
  return useQuery<PresetList, ApiError>({
    queryKey: queryKeys.presets,
    queryFn: () => api.modelPresets().catch(rejectAsApiError),
  });
}

/** After a switch every role may have changed: fetch what depends on them again. */
async function refreshAfterSwitch(qc: QueryClient) {
  await Promise.all([
    qc.invalidateQueries({ queryKey: queryKeys.presets }),
    qc.invalidateQueries({ queryKey: queryKeys.roles }),
    qc.invalidateQueries({ queryKey: queryKeys.config }),
    qc.invalidateQueries({ queryKey: queryKeys.bootstrap }),
  ]);
}

/** Applies a preset by name, or undoes the last switch (`undo: true`); answers what changed. */
export function useSwitchPreset() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<PresetSwitch, ApiError, { name: string } | { undo: true }>({
    mutationFn: (what) =>
      ('undo' in what ? api.undoModelPreset() : api.applyModelPreset(what.name)).catch(rejectAsApiError),
    onSuccess: () => refreshAfterSwitch(qc),
  });
}

export function useSavePreset() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<Preset, ApiError, SavePresetRequest>({
    mutationFn: (body) => api.saveModelPreset(body).catch(rejectAsApiError),
    onSuccess: () => qc.invalidateQueries({ queryKey: queryKeys.presets }),
  });
}

export function useDeletePreset() {
  const api = useApi();
  const qc = useQueryClient();
  return useMutation<OkReply, ApiError, string>({
    mutationFn: (name) => api.deleteModelPreset(name).catch(rejectAsApiError),
    onSuccess: () => qc.invalidateQueries({ queryKey: queryKeys.presets }),
  });
}

// ------------------------------------------------------------------------------ check-up

/** Where the check-up is: the roles it checks, each role's current step, and finished roles. */
export type CheckupState = {
  phase: 'idle' | 'running' | 'done' | 'failed';
  /** The roles being checked, in order (from the start line). */
  picks: RolePick[];
  /** What each role is doing now, e.g. "Trying a tool call". */
  steps: Partial<Record<string, string>>;
  /** Finished roles by name. */
  results: Partial<Record<string, RoleResult>>;
  /** The overall status once done (the worst role). */
  status: CheckStatus | null;
  error: string | null;
};

const CHECKUP_IDLE: CheckupState = { phase: 'idle', picks: [], steps: {}, results: {}, status: null, error: null };

/** Folds one check-up line into the state. */
export function checkupReducer(state: CheckupState, line: CheckupLine): CheckupState {
  switch (line.type) {
    case 'start':
      return { ...state, picks: line.roles };
    case 'step':
      return { ...state, steps: { ...state.steps, [line.role]: line.label } };
    case 'role': {
      const { type: _type, ...result } = line;
      const steps = { ...state.steps };
      delete steps[result.role];
      return { ...state, steps, results: { ...state.results, [result.role]: result } };
    }
    case 'done': {
      const results = { ...state.results };
      for (const r of line.roles) results[r.role] = r;
      return { ...state, phase: 'done', steps: {}, results, status: line.status };
    }
    default:
      return state;
  }
}

/** Runs the model check-up and follows it line by line. */
export function useCheckup() {
  const api = useApi();
  const [state, setState] = useState<CheckupState>(CHECKUP_IDLE);
  const running = useRef(false);

  const start = useCallback(
    async (body: CheckupRequest = {}) => {
      if (running.current) return;
      running.current = true;
      setState({ ...CHECKUP_IDLE, phase: 'running' });
      try {
        await api.modelCheckup(body, (line) => setState((prev) => checkupReducer(prev, line)));
        // A stream that ended without its done line was cut short.
        setState((prev) =>
          prev.phase === 'running'
            ? { ...prev, phase: 'failed', steps: {}, error: 'The check-up stopped before it finished. Try again.' }
            : prev,
        );
      } catch (e) {
        setState((prev) => ({ ...prev, phase: 'failed', steps: {}, error: toApiError(e).detail }));
      } finally {
        running.current = false;
      }
    },
    [api],
  );

  return { state, start, busy: state.phase === 'running' };
}
