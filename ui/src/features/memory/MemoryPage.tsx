import { EmptyState, Page } from '../../components/Page';
import { MemoryIcon } from '../../components/icons';

export function MemoryPage({ enabled }: { enabled: boolean }) {
  return (
    <Page title="Memory" intro="What Sentient knows about you, so you don't have to repeat yourself.">
      <EmptyState icon={<MemoryIcon size={28} />} title={enabled ? 'Nothing remembered yet' : 'Memory is off'}>
        <p>
          Things Sentient remembers about you will show up here, and you'll be able to change or remove any of them.
        </p>
        {enabled ? null : <p className="muted">While memory is off, Sentient doesn't keep anything from your chats.</p>}
      </EmptyState>
    </Page>
  );
}
