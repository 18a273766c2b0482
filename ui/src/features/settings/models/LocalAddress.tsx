// Where Ollama and LM Studio run: an address field for each, saved only once the engine found
// that server answering there (its plain sentence otherwise). Used by Settings > Models and by
// onboarding's "Ollama runs on another computer?".
import { useId, useState } from 'react';
import { ErrorNotice } from '../../../components/Page';
import { useModelProviders, useSetLocalAddress } from './queries';

export type LocalServerId = 'ollama' | 'lm_studio';

const SERVERS: Record<LocalServerId, { label: string; provider: string; usual: string; example: string }> = {
  ollama: { label: 'Ollama', provider: 'ollama_chat', usual: 'http://localhost:11434', example: 'http://192.168.1.20:11434' },
  lm_studio: { label: 'LM Studio', provider: 'lm_studio', usual: 'http://localhost:1234/v1', example: 'http://192.168.1.20:1234' },
};

/** One server's address: the saved one shown, a field to change it, Save checks it first. */
export function LocalAddressField({ server, onSaved }: { server: LocalServerId; onSaved?: () => void }) {
  const info = SERVERS[server];
  const providers = useModelProviders();
  const save = useSetLocalAddress();
  const saved = providers.data?.find((p) => p.id === info.provider)?.api_base ?? info.usual;
  const [value, setValue] = useState<string | null>(null);
  const id = useId();
  const shown = value ?? saved;

  const submit = (address: string | null) => {
    if (save.isPending) return;
    save.mutate(
      { provider: server, api_base: address },
      {
        onSuccess: () => {
          setValue(null);
          onSaved?.();
        },
      },
    );
  };

  return (
    <div className="local-address" data-testid={`address-${server}`}>
      <div className="download">
        <div className="field download-field">
          <label className="field-label" htmlFor={id}>
            {info.label}'s address
          </label>
          <input
            id={id}
            type="text"
            inputMode="url"
            value={shown}
            placeholder={info.example}
            autoComplete="off"
            spellCheck={false}
            aria-describedby={`${id}-help`}
            aria-invalid={save.isError}
            onChange={(e) => {
              setValue(e.target.value);
              save.reset();
            }}
            onKeyDown={(e) => {
              if (e.key === 'Enter') submit(shown.trim() || null);
            }}
            disabled={save.isPending}
          />
          <span className="field-help" id={`${id}-help`}>
            For {info.label} on another computer, use that computer's address, for example {info.example}.
          </span>
        </div>
        <button type="button" className="btn btn-primary" onClick={() => submit(shown.trim() || null)} disabled={save.isPending}>
          {save.isPending ? 'Checking…' : 'Save'}
        </button>
      </div>
      {save.isSuccess ? (
        <p className="muted" role="status">
          {save.data.reachable ? `${info.label} answers there` : `Saved`}
          {save.data.models.length > 0 ? ` and has ${save.data.models.length} model${save.data.models.length === 1 ? '' : 's'}.` : '.'}
        </p>
      ) : null}
      <ErrorNotice error={save.error} prefix="Not saved." />
      {save.isError && saved !== info.usual ? (
        <button type="button" className="btn btn-quiet" onClick={() => submit(null)}>
          Use the usual address ({info.usual})
        </button>
      ) : null}
    </div>
  );
}

/** "Ollama runs on another computer?": the address fields, closed until asked for. */
export function OtherComputer({ onSaved, lmStudio = true }: { onSaved?: () => void; lmStudio?: boolean }) {
  const [open, setOpen] = useState(false);
  const panel = useId();
  return (
    <div className="other-computer">
      <button type="button" className="btn btn-quiet" aria-expanded={open} aria-controls={panel} onClick={() => setOpen(!open)}>
        Ollama runs on another computer?
      </button>
      {open ? (
        <div id={panel}>
          <LocalAddressField server="ollama" onSaved={onSaved} />
          {lmStudio ? <LocalAddressField server="lm_studio" onSaved={onSaved} /> : null}
        </div>
      ) : null}
    </div>
  );
}
