// The window's import graph, read from the source text, and the rules its folders keep: no
// import circle, a feature reaches another only through that feature's index.ts (what it
// deliberately exports), features don't lean on each other in a circle, and api/ and
// components/ never import a feature. Checked by architecture.test.ts.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

/** File (relative to ui/src, `/`-separated) → the files it imports (same form). */
export type ImportGraph = Map<string, string[]>;

// `import … from '…'`, `export … from '…'` and `import '…'` at a line's start, and `import('…')`;
// type-only imports count too (a circle of types is still a circle to read through).
const IMPORT = /^\s*(?:import|export)\s[^'";]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** The relative specifiers a file imports (packages are left out). */
export function importSpecifiers(source: string): string[] {
  const text = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (spec.startsWith('.')) found.push(spec);
  }
  return found;
}

/** The .ts/.tsx files under `dir`, tests left out (nothing imports a test, so none is in a circle). */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

const slash = (p: string) => p.split('\\').join('/');

/** Which file a specifier names, the way the bundler resolves it. */
function resolveSpecifier(fromFile: string, spec: string): string | null {
  const base = normalize(join(dirname(fromFile), spec));
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** Reads the source files under `root`; an import naming no file is an error. */
export function readImportGraph(root: string): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of sourceFiles(root)) {
    const targets = importSpecifiers(readFileSync(file, 'utf8')).map((spec) => {
      const target = resolveSpecifier(file, spec);
      if (!target) throw new Error(`${slash(relative(root, file))} imports '${spec}', which names no file`);
      return slash(relative(root, target));
    });
    graph.set(slash(relative(root, file)), [...new Set(targets)]);
  }
  return graph;
}

/** The circles of a graph (Tarjan's strongly connected components), each as its files, sorted. */
export function findCycles(graph: ImportGraph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];

  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      const selfLoop = component.length === 1 && (graph.get(node) ?? []).includes(node);
      if (component.length > 1 || selfLoop) cycles.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return cycles.sort((a, b) => a[0].localeCompare(b[0]));
}

/** `features/<area>/…` → the area; null outside features/. */
export function featureOf(file: string): string | null {
  const parts = file.split('/');
  return parts[0] === 'features' && parts.length > 2 ? parts[1] : null;
}

const isTestFile = (file: string) => /\.test\.tsx?$/.test(file) || file.startsWith('test/');

/**
 * Imports that reach into another feature's files instead of its index.ts. Tests are left out:
 * they may drive the whole app (App.tsx) or reuse another area's fakes.
 */
export function crossFeatureReaches(graph: ImportGraph): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph) {
    const from = featureOf(file);
    if (!from || isTestFile(file)) continue;
    for (const target of targets) {
      const to = featureOf(target);
      if (to && to !== from && !/^features\/[^/]+\/index\.tsx?$/.test(target)) found.push(`${file} -> ${target}`);
    }
  }
  return found.sort();
}

/** Area → the other areas its (non-test) files import. */
export function featureGraph(graph: ImportGraph): ImportGraph {
  const areas: ImportGraph = new Map();
  for (const [file, targets] of graph) {
    const from = featureOf(file);
    if (!from || isTestFile(file)) continue;
    const uses = areas.get(from) ?? [];
    for (const target of targets) {
      const to = featureOf(target);
      if (to && to !== from && !uses.includes(to)) uses.push(to);
    }
    areas.set(from, uses);
  }
  return areas;
}

/** Non-test files of the shared folders (api/, components/) that import a feature. */
export function sharedImportingFeatures(graph: ImportGraph): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph) {
    if (!/^(api|components)\//.test(file) || isTestFile(file)) continue;
    for (const target of targets) if (featureOf(target)) found.push(`${file} -> ${target}`);
  }
  return found.sort();
}
