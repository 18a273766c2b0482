// Start-up flow: wait for bootstrap, then onboarding on first launch, else the app.
import { useLiveEvents } from './api/queries';
import { useBootstrap } from './api/shared';
import { Onboarding } from './features/onboarding/Onboarding';
import { AppShell } from './features/shell/AppShell';
import { StartingScreen, StartupError } from './features/shell/StartupScreens';
import { useApplyTheme } from './features/shell/theme';

export function App() {
  const boot = useBootstrap();
  const live = useLiveEvents();
  useApplyTheme(boot.data?.ui.theme);

  // A failed refetch later on keeps the app showing what it already has.
  if (!boot.data) {
    if (boot.error && !boot.isFetching) return <StartupError error={boot.error} onRetry={() => void boot.refetch()} />;
    return <StartingScreen />;
  }
  if (!boot.data.assistant.onboarding_complete) return <Onboarding bootstrap={boot.data} />;
  return <AppShell bootstrap={boot.data} connectionLost={live.lost} />;
}
