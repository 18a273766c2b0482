// The window's folder rules (see test/importGraph.ts), checked on the real source, and the checks
// themselves tried on small graphs that break each rule, so a broken rule can't pass unseen.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  crossFeatureReaches,
  featureGraph,
  findCycles,
  importSpecifiers,
  readImportGraph,
  sharedImportingFeatures,
  type ImportGraph,
} from './test/importGraph';

// The folder of this file (jsdom gives import.meta.url an http: address; vitest sets __dirname).
const SRC = __dirname;
const graphOf = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges));

describe('the checks', () => {
  it('read every kind of relative import and skip packages and comments', () => {
    const source = [
      "import { a } from './a';",
      "import type { B } from '../b';",
      "export { c } from './c';",
      "export type * from './d';",
      "import './e.css';",
      "const f = await import('./f');",
      "import {\n  g,\n  h,\n} from './gh';",
      "import { useState } from 'react';",
      "// import { x } from './commented';",
    ].join('\n');
    expect(importSpecifiers(source)).toEqual(['./a', '../b', './c', './d', './e.css', './f', './gh']);
  });

  it('find a circle of two files, a longer one and a file importing itself', () => {
    const graph = graphOf({
      'api/calls.ts': ['api/types.ts'],
      'api/types.ts': ['api/calls.ts'],
      'a.ts': ['b.ts'],
      'b.ts': ['c.ts'],
      'c.ts': ['a.ts'],
      'self.ts': ['self.ts'],
      'leaf.ts': [],
    });
    expect(findCycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['api/calls.ts', 'api/types.ts'], ['self.ts']]);
    expect(findCycles(graphOf({ 'a.ts': ['b.ts'], 'b.ts': [] }))).toEqual([]);
  });

  it("flag a feature reaching into another feature's files, not through its index", () => {
    const graph = graphOf({
      'features/devices/PairingCard.tsx': ['features/settings/webhooks/CopyButton.tsx', 'components/Page.tsx'],
      'features/shell/AppShell.tsx': ['features/chat/index.ts', 'features/shell/theme.ts'],
      'features/chat/ChatPage.test.tsx': ['features/tasks/words.ts'],
    });
    expect(crossFeatureReaches(graph)).toEqual(['features/devices/PairingCard.tsx -> features/settings/webhooks/CopyButton.tsx']);
  });

  it('find two features leaning on each other through their index files', () => {
    const graph = graphOf({
      'features/onboarding/ModelStep.tsx': ['features/settings/index.ts'],
      'features/settings/AboutYou.tsx': ['features/onboarding/index.ts'],
      'features/settings/index.ts': ['features/settings/AboutYou.tsx'],
      'features/onboarding/index.ts': ['features/onboarding/ModelStep.tsx'],
    });
    expect(findCycles(featureGraph(graph))).toEqual([['onboarding', 'settings']]);
  });

  it('flag a shared folder importing a feature', () => {
    const graph = graphOf({
      'components/ErrorActions.tsx': ['features/settings/index.ts'],
      'api/queries.ts': ['api/context.tsx'],
      'api/calls.test.ts': ['features/integrations/fakeIntegrations.ts'],
    });
    expect(sharedImportingFeatures(graph)).toEqual(['components/ErrorActions.tsx -> features/settings/index.ts']);
  });
});

describe('the window', () => {
  const graph = readImportGraph(SRC);

  it('reads the whole source', () => {
    expect(graph.has('App.tsx')).toBe(true);
    expect(graph.get('App.tsx')!.length).toBeGreaterThan(0);
  });

  it('has no import circle among its files', () => {
    expect(findCycles(graph)).toEqual([]);
  });

  it("has no feature importing another feature's internal files", () => {
    expect(crossFeatureReaches(graph)).toEqual([]);
  });

  it('has no circle between features', () => {
    expect(findCycles(featureGraph(graph))).toEqual([]);
  });

  it('keeps api/ and components/ below the features', () => {
    expect(sharedImportingFeatures(graph)).toEqual([]);
  });

  // A page re-exported plainly would pull its code into the window's first script; only Chat,
  // where the window opens, comes with the shell.
  it('exports every page but Chat from its index to be loaded when first opened', () => {
    const indexes = readdirSync(join(SRC, 'features')).map((feature) => join(SRC, 'features', feature, 'index.ts'));
    const pages = indexes.flatMap((file) => {
      if (!existsSync(file)) return [];
      const source = readFileSync(file, 'utf8');
      return [...source.matchAll(/export\s+(?:const\s+(\w+Page)\b.*|\{[^}]*\b(\w+Page)\b[^}]*\}.*)/g)].map(
        (m) => `${m[1] ?? m[2]}: ${m[0].includes('lazyNamed(') ? 'lazy' : 'loaded at open'}`,
      );
    });
    expect(pages.length).toBeGreaterThanOrEqual(6);
    expect(pages.filter((p) => !p.endsWith(': lazy'))).toEqual(['ChatPage: loaded at open']);
  });
});
