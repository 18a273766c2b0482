// The generic settings form against the engine's real schema (trimmed, form/config-schema.fixture.json):
// each field's kind, title, description and range come from the schema; a value out of range is
// refused with a sentence and never sent; a good one patches only that field, with Saving… and
// Saved.; hidden and "Not used yet" settings are left out.
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { ConfigSchema } from '../../../api/calls';
import type { Config } from '../../../api';
import { ApiError } from '../../../api/errors';
import { CONFIG_SCHEMA, fakeApi, makeBootstrap } from '../../../test/fakes';
import { renderWithApi } from '../../../test/render';
import { SchemaForm } from './SchemaForm';
import { checkValue, fieldModel, isHidden, patchFor, rangeSentence, sectionShown } from './schema';

function withField(section: string, key: string, change: Partial<ConfigSchema>): ConfigSchema {
  const copy = structuredClone(CONFIG_SCHEMA);
  const defs = copy.$defs as Record<string, ConfigSchema>;
  const props = defs[section].properties as Record<string, ConfigSchema>;
  props[key] = { ...props[key], ...change };
  return copy;
}

function setup(config: Record<string, unknown> = {}) {
  const engine = fakeApi(makeBootstrap());
  let current: Record<string, unknown> = structuredClone(config);
  engine.api.getConfig.mockImplementation(async () => current as unknown as Config);
  engine.api.patchConfig.mockImplementation(async (...args: unknown[]) => {
    const patch = args[0] as Record<string, Record<string, unknown>>;
    for (const [section, fields] of Object.entries(patch)) {
      current = { ...current, [section]: { ...((current[section] as object) ?? {}), ...fields } };
    }
    return { saved: true, config: current as unknown as Config };
  });
  return engine;
}

describe('reading the schema', () => {
  it('turns each kind of setting into its field, with the range and choices the schema gives', () => {
    const port = fieldModel(CONFIG_SCHEMA, ['nodes'], { key: 'lan_port', title: 'Port' });
    expect(port).toMatchObject({ kind: 'number', integer: true, min: 1024, max: 65535, step: 1, title: 'Port' });
    expect(port?.description).toBe('The port devices on your network connect to.');

    const wait = fieldModel(CONFIG_SCHEMA, ['nodes'], { key: 'invoke_timeout_s' });
    expect(wait).toMatchObject({ kind: 'number', min: 2, max: 120, unit: 'seconds' });

    const cost = fieldModel(CONFIG_SCHEMA, ['tasks'], { key: 'max_cost_per_run_usd' });
    expect(cost).toMatchObject({ kind: 'number', integer: false, min: 0, max: null, unit: 'US dollars' });

    const lan = fieldModel(CONFIG_SCHEMA, ['nodes'], { key: 'lan_enabled' });
    expect(lan).toMatchObject({ kind: 'switch', title: 'Accept devices on your local network (encrypted, and each needs a pairing code)' });
    expect(lan?.description).toBe('');

    const tools = fieldModel(CONFIG_SCHEMA, ['chat'], { key: 'tool_selection' });
    expect(tools?.kind).toBe('select');
    expect(tools?.options.map((o) => o.value)).toEqual(['auto', 'all']);
    expect(tools?.options[1].label).toBe('Always offer every tool');

    const length = fieldModel(CONFIG_SCHEMA, ['models'], { key: 'context_length' });
    expect(length).toMatchObject({ kind: 'number', nullable: true, min: 2048, max: 1048576 });

    const nested = fieldModel(CONFIG_SCHEMA, ['tasks', 'continuity'], { key: 'runs' });
    expect(nested).toMatchObject({ path: ['tasks', 'continuity', 'runs'], min: 0, max: 20 });

    // Lists and maps are not form fields; unknown keys are nothing.
    expect(fieldModel(CONFIG_SCHEMA, ['tools'], { key: 'disabled' })).toBeNull();
    expect(fieldModel(CONFIG_SCHEMA, ['nodes'], { key: 'no_such_setting' })).toBeNull();
  });

  it('hides what the contract marks hidden or not used yet, and sections bootstrap turns off', () => {
    expect(isHidden({ description: 'Not used yet (it arrives in a later version). Voice.' })).toBe(true);
    expect(isHidden({ description: 'Seconds to wait.', 'x-hidden': true })).toBe(true);
    expect(isHidden({ description: 'Seconds to wait.' })).toBe(false);
    expect(sectionShown(CONFIG_SCHEMA, 'voice')).toBe(false);
    expect(sectionShown(CONFIG_SCHEMA, 'memory')).toBe(false);
    expect(sectionShown(CONFIG_SCHEMA, 'nodes')).toBe(true);
    expect(sectionShown(CONFIG_SCHEMA, 'tasks', { tasks: false })).toBe(false);
    expect(sectionShown(CONFIG_SCHEMA, 'nowhere')).toBe(false);
    const hidden = withField('NodesConfig', 'lan_port', { description: 'Not used yet (it arrives in a later version). A port.' });
    expect(fieldModel(hidden, ['nodes'], { key: 'lan_port' })).toBeNull();
  });

  it('checks a value against the range in one plain sentence', () => {
    const port = fieldModel(CONFIG_SCHEMA, ['nodes'], { key: 'lan_port' })!;
    expect(checkValue(port, ' 8443 ')).toEqual({ ok: true, value: 8443 });
    for (const bad of ['80', '70000', '12.5', 'abc', '']) {
      expect(checkValue(port, bad)).toEqual({ ok: false, problem: 'Use a whole number from 1024 to 65535.' });
    }
    const wait = fieldModel(CONFIG_SCHEMA, ['nodes'], { key: 'invoke_timeout_s' })!;
    expect(rangeSentence(wait)).toBe('Use a whole number of seconds from 2 to 120.');
    const cost = fieldModel(CONFIG_SCHEMA, ['tasks'], { key: 'max_cost_per_run_usd' })!;
    expect(checkValue(cost, '2.5')).toEqual({ ok: true, value: 2.5 });
    expect(checkValue(cost, '-1')).toEqual({ ok: false, problem: 'Use a number of US dollars of at least 0.' });
    const length = fieldModel(CONFIG_SCHEMA, ['models'], { key: 'context_length' })!;
    expect(checkValue(length, '')).toEqual({ ok: true, value: null });
    expect(patchFor(['tasks', 'continuity', 'runs'], 3)).toEqual({ tasks: { continuity: { runs: 3 } } });
  });
});

describe('SchemaForm', () => {
  it('shows each field with its title, its description and the range from the schema', async () => {
    const engine = setup({ nodes: { lan_port: 7778, invoke_timeout_s: 20 } });
    renderWithApi(<SchemaForm section={['nodes']} fields={[{ key: 'lan_port', title: 'Port for devices' }, 'invoke_timeout_s']} title="Connection" />, engine.api);

    const port = await screen.findByRole('spinbutton', { name: 'Port for devices' });
    expect(port).toHaveValue(7778);
    expect(port).toHaveAttribute('min', '1024');
    expect(port).toHaveAttribute('max', '65535');
    expect(port).toHaveAttribute('step', '1');
    expect(port).toHaveAccessibleDescription('The port devices on your network connect to.');
    const wait = screen.getByRole('spinbutton', { name: 'Seconds to wait for a device to answer a request' });
    expect(wait).toHaveValue(20);
    expect(screen.getByRole('region', { name: 'Connection' })).toHaveTextContent('seconds');
  });

  it('takes its range from the schema only: a changed schema changes what it refuses', async () => {
    const engine = setup({ nodes: { invoke_timeout_s: 20 } });
    engine.api.configSchema.mockResolvedValue(withField('NodesConfig', 'invoke_timeout_s', { minimum: 5, maximum: 60 }));
    renderWithApi(<SchemaForm section={['nodes']} fields={['invoke_timeout_s']} />, engine.api);
    const wait = await screen.findByRole('spinbutton', { name: /Seconds to wait/ });
    expect(wait).toHaveAttribute('max', '60');
    await userEvent.clear(wait);
    await userEvent.type(wait, '100{Enter}');
    expect(await screen.findByRole('alert')).toHaveTextContent('Use a whole number of seconds from 5 to 60.');
    expect(engine.api.patchConfig).not.toHaveBeenCalled();
  });

  it('refuses a value out of range with a sentence under the field, and sends nothing', async () => {
    const engine = setup({ nodes: { lan_port: 7778 } });
    renderWithApi(<SchemaForm section={['nodes']} fields={[{ key: 'lan_port', title: 'Port' }]} />, engine.api);
    const port = await screen.findByRole('spinbutton', { name: 'Port' });
    await userEvent.clear(port);
    await userEvent.type(port, '80');
    await userEvent.tab();
    const problem = await screen.findByText('Use a whole number from 1024 to 65535.');
    expect(problem).toHaveAttribute('role', 'alert');
    expect(port).toHaveAttribute('aria-invalid', 'true');
    expect(port).toHaveAccessibleDescription(/Use a whole number from 1024 to 65535\./);
    expect(engine.api.patchConfig).not.toHaveBeenCalled();
  });

  it('patches only the changed field, saying Saving… then Saved.', async () => {
    const engine = setup({ nodes: { lan_port: 7778, invoke_timeout_s: 20, idle_timeout_s: 180 } });
    let finish: () => void = () => {};
    engine.api.patchConfig.mockImplementationOnce(
      () =>
        new Promise((resolve) => {
          finish = () => resolve({ saved: true, config: { nodes: { lan_port: 7778, invoke_timeout_s: 30, idle_timeout_s: 180 } } as unknown as Config });
        }),
    );
    renderWithApi(<SchemaForm section={['nodes']} fields={['lan_port', 'invoke_timeout_s', 'idle_timeout_s']} />, engine.api);
    const wait = await screen.findByRole('spinbutton', { name: /Seconds to wait/ });
    await userEvent.clear(wait);
    await userEvent.type(wait, '30{Enter}');
    expect(engine.api.patchConfig).toHaveBeenCalledTimes(1);
    expect(engine.api.patchConfig).toHaveBeenCalledWith({ nodes: { invoke_timeout_s: 30 } });
    const field = wait.closest('form') as HTMLElement;
    expect(await within(field).findByRole('status')).toHaveTextContent('Saving…');
    await act(async () => finish());
    await waitFor(() => expect(within(field).getByRole('status')).toHaveTextContent('Saved.'));
    // Leaving the field after Enter doesn't save it again; an unchanged value isn't sent.
    await userEvent.tab();
    expect(engine.api.patchConfig).toHaveBeenCalledTimes(1);
  });

  it('saves a switch and a choice at once, and shows the engine refusing a value under that field', async () => {
    const engine = setup({ chat: { show_thinking: true, tool_selection: 'auto' } });
    renderWithApi(<SchemaForm section={['chat']} fields={['show_thinking', 'tool_selection']} />, engine.api);
    await userEvent.click(await screen.findByRole('switch', { name: /Show the model's reasoning/ }));
    expect(engine.api.patchConfig).toHaveBeenLastCalledWith({ chat: { show_thinking: false } });
    await waitFor(() => expect(screen.getByRole('switch', { name: /Show the model's reasoning/ })).not.toBeChecked());

    engine.api.patchConfig.mockRejectedValueOnce(new ApiError(422, 'That choice is not allowed here.'));
    const select = screen.getByRole('combobox', { name: /Which tools are offered/ });
    await userEvent.selectOptions(select, 'all');
    expect(engine.api.patchConfig).toHaveBeenLastCalledWith({ chat: { tool_selection: 'all' } });
    const field = select.closest('form') as HTMLElement;
    expect(await within(field).findByRole('alert')).toHaveTextContent("Couldn't save that. That choice is not allowed here.");
  });

  it('keeps a switch where it was put when a read of the settings asked for before the change lands after it', async () => {
    const engine = setup({ chat: { show_thinking: true } });
    const { queryClient } = renderWithApi(<SchemaForm section={['chat']} fields={['show_thinking']} />, engine.api);
    const toggle = await screen.findByRole('switch', { name: /Show the model's reasoning/ });
    // A read of the settings (for an earlier config.updated) starts, and is answered late with
    // the settings as they were when it was asked for.
    const real = engine.api.getConfig.getMockImplementation();
    let answer: () => void = () => {};
    engine.api.getConfig.mockImplementationOnce(async () => {
      const before = structuredClone(await real!());
      await new Promise<void>((resolve) => {
        answer = resolve;
      });
      return before;
    });
    void queryClient.invalidateQueries({ queryKey: ['config'] });
    await waitFor(() => expect(engine.api.getConfig).toHaveBeenCalledTimes(2));
    await userEvent.click(toggle);
    expect(engine.api.patchConfig).toHaveBeenLastCalledWith({ chat: { show_thinking: false } });
    await waitFor(() => expect(screen.getByRole('switch', { name: /Show the model's reasoning/ })).not.toBeChecked());
    answer();
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(screen.getByRole('switch', { name: /Show the model's reasoning/ })).not.toBeChecked();
  });

  it('leaves out fields the schema hides, and shows nothing when none is left', async () => {
    const engine = setup({ nodes: {} });
    engine.api.configSchema.mockResolvedValue(
      withField('NodesConfig', 'lan_port', { description: 'Not used yet (it arrives in a later version). The port.' }),
    );
    const { container } = renderWithApi(
      <>
        <SchemaForm section={['nodes']} fields={['lan_port', 'idle_timeout_s']} testId="one" />
        <SchemaForm section={['voice']} fields={['enabled']} title="Voice" testId="two" />
      </>,
      engine.api,
    );
    // The default fills in a value the settings leave out.
    expect(await screen.findByRole('spinbutton', { name: /A device that sends nothing/ })).toHaveValue(180);
    expect(screen.queryByRole('spinbutton', { name: /port/i })).toBeNull();
    expect(screen.queryByRole('region', { name: 'Voice' })).toBeNull();
    expect(container.querySelector('[data-testid="two"]')).toBeNull();
  });
});
