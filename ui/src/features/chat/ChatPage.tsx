import type { Bootstrap } from '../../api';
import { EmptyState, Page } from '../../components/Page';
import { ChatIcon } from '../../components/icons';

export function ChatPage({ bootstrap }: { bootstrap: Bootstrap }) {
  const { name, user_name } = bootstrap.assistant;
  const hello = user_name ? `Hi ${user_name}.` : 'Hi.';
  return (
    <Page title="Chat" intro={`${hello} This is where you and ${name} will talk.`}>
      <EmptyState icon={<ChatIcon size={28} />} title="Chat is coming soon">
        <p>
          You'll be able to ask {name} questions, get help with your day, and hand over work here. Your past chats will be
          listed too.
        </p>
      </EmptyState>
    </Page>
  );
}
