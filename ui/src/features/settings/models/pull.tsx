// One Ollama download at a time for the whole Models tab: the Ollama card, a preset's missing
// model and a check-up fix all start it here, and the Ollama card shows its progress.
import { createContext, useContext, type ReactNode } from 'react';
import { usePullModel } from '../../../api/shared';

export type Pull = ReturnType<typeof usePullModel>;

const PullContext = createContext<Pull | null>(null);

export function PullProvider({ children }: { children: ReactNode }) {
  const pull = usePullModel();
  return <PullContext.Provider value={pull}>{children}</PullContext.Provider>;
}

export function usePull(): Pull {
  const pull = useContext(PullContext);
  if (!pull) throw new Error('usePull() needs a <PullProvider> above it');
  return pull;
}
