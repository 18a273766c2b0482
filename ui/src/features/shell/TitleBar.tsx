// The bar across the top: the app's name and the one control that must always be in reach.
import { StopButton } from '../stop';

export function TitleBar() {
  return (
    <header className="titlebar" data-tauri-drag-region>
      <div className="brand" data-tauri-drag-region>
        <span className="brand-mark" aria-hidden="true" />
        <span className="brand-name">Sentient</span>
      </div>
      <StopButton />
    </header>
  );
}
