import { EmptyState, Page } from '../../components/Page';
import { PlugIcon } from '../../components/icons';

export function IntegrationsPage() {
  return (
    <Page title="Integrations" intro="The apps and accounts Sentient can work with for you.">
      <EmptyState icon={<PlugIcon size={28} />} title="No apps connected yet">
        <p>
          Apps you connect, like your email, calendar or chat apps, will show up here. You'll choose what Sentient may
          read and do in each one.
        </p>
      </EmptyState>
    </Page>
  );
}
