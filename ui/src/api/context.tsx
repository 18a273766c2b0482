// Hands the chosen transport to the component tree (tests hand in a fake one).
import { createContext, useContext, type ReactNode } from 'react';
import type { SentientApi } from './sentientApi';

const ApiContext = createContext<SentientApi | null>(null);

export function ApiProvider({ api, children }: { api: SentientApi; children: ReactNode }) {
  return <ApiContext.Provider value={api}>{children}</ApiContext.Provider>;
}

export function useApi(): SentientApi {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi() needs an <ApiProvider> above it');
  return api;
}
