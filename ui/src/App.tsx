// Start-up flow: wait for bootstrap, then onboarding on first launch, else the app. Each of the
// two is loaded when shown, so a set-up window never holds onboarding's code, nor a first
// launch the app's.
import { useLiveEvents } from './api/queries';
import { useBootstrap } from './api/shared';
import { LazyPart, lazyNamed } from './components/LazyPart';
import { Onboarding } from './features/onboarding';
import { StartingScreen, StartupError } from './features/shell/StartupScreens';
import { useApplyTheme } from './features/shell/theme';

const AppShell = lazyNamed(() => import('./features/shell/AppShell'), 'AppShell');

export function App() {
  const boot = useBootstrap();
  const live = useLiveEvents();
  useApplyTheme(boot.data?.ui.theme);

  // A failed refetch later on keeps the app showing what it already has.
  if (!boot.data) {
    if (boot.error && !boot.isFetching) return <StartupError error={boot.error} onRetry={() => void boot.refetch()} />;
    return <StartingScreen />;
  }
  return (
    <LazyPart fallback={<StartingScreen />}>
      {boot.data.assistant.onboarding_complete ? (
        <AppShell bootstrap={boot.data} connectionLost={live.lost} />
      ) : (
        <Onboarding bootstrap={boot.data} />
      )}
    </LazyPart>
  );
}
