import { EmptyState, Page } from '../../components/Page';
import { MemoryIcon } from '../../components/icons';

// Memory is not built yet (the bootstrap's `memory_enabled` stays false until it is), so the
// page says so instead of showing an empty list that looks broken.
export function MemoryPage() {
  return (
    <Page title="Memory" intro="What Sentient knows about you, so you don't have to repeat yourself.">
      <EmptyState icon={<MemoryIcon size={28} />} title="Coming soon">
        <p>
          Sentient will remember what you tell it here, and you'll be able to change or remove any of it. Until then
          it keeps nothing from your chats.
        </p>
      </EmptyState>
    </Page>
  );
}
