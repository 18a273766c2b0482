// Controls never show only on hover (issue 32): touch and keyboard users can't hover, so nothing
// the window's CSS hides (opacity 0, visibility hidden, display none) may be what a :hover rule
// reveals. Checked on the real style sheets, and the check itself tried on small sheets.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

type Rule = { selectors: string[]; body: string };

/** The style rules of a sheet (at-rule blocks are read through, comments dropped). */
export function rulesOf(css: string): Rule[] {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, '');
  const rules: Rule[] = [];
  const re = /([^{}]+)\{([^{}]*)\}/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const head = m[1].trim();
    if (head.startsWith('@')) continue;
    rules.push({ selectors: head.split(',').map((s) => s.trim()), body: m[2] });
  }
  return rules;
}

const HIDES = /(?:^|;)\s*(?:opacity\s*:\s*0(?:\.0+)?\s*(?:;|$)|visibility\s*:\s*hidden|display\s*:\s*none)/;
const SHOWS = /(?:^|;)\s*(?:opacity\s*:\s*(?:1|0?\.\d+)|visibility\s*:\s*visible|display\s*:\s*(?!none)[a-z-]+)/;

/** The last compound of a selector (what it styles), e.g. `.card-tools` of `.card:hover .card-tools`. */
function target(selector: string): string {
  const parts = selector.split(/\s+|>|\+|~/).filter(Boolean);
  return parts[parts.length - 1] ?? '';
}

/** Selectors hidden by a plain rule and shown again by a rule that needs :hover. */
export function hoverOnly(css: string): string[] {
  const rules = rulesOf(css);
  const hidden = new Set<string>();
  for (const r of rules) {
    if (!HIDES.test(r.body)) continue;
    for (const s of r.selectors) if (!/:hover|:focus/.test(s)) hidden.add(target(s));
  }
  const found: string[] = [];
  for (const r of rules) {
    if (!SHOWS.test(r.body)) continue;
    for (const s of r.selectors) {
      const t = target(s).replace(/:hover|:focus-within|:focus-visible|:focus/g, '');
      if (s.includes(':hover') && hidden.has(t)) found.push(s);
    }
  }
  return found;
}

function cssFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return cssFiles(path);
    return name.endsWith('.css') ? [path] : [];
  });
}

describe('the check', () => {
  it('finds a control hidden until hover, in either order and through a media block', () => {
    expect(hoverOnly('.row .tools { opacity: 0; }\n.row:hover .tools { opacity: 1; }')).toEqual(['.row:hover .tools']);
    expect(hoverOnly('.a:hover .x, .b .x { visibility: visible }\n.x { visibility: hidden }')).toEqual(['.a:hover .x']);
    expect(hoverOnly('@media (min-width: 1px) { .x { display: none } }\n.x:hover { display: flex }')).toEqual(['.x:hover']);
  });

  it('leaves quieter-until-hover controls, hidden inputs and hover colours alone', () => {
    expect(hoverOnly('.tools { opacity: 0.7; }\n.row:hover .tools { opacity: 1; }')).toEqual([]);
    expect(hoverOnly('.segment input { opacity: 0; pointer-events: none; }\n.segment:hover { background: red; }')).toEqual([]);
    expect(hoverOnly('.x { opacity: 0; }\n.x:focus-visible { opacity: 1; }')).toEqual([]);
  });
});

describe('the window', () => {
  it('shows every control without hover', () => {
    const found = cssFiles(__dirname).flatMap((file) =>
      hoverOnly(readFileSync(file, 'utf8')).map((s) => `${relative(__dirname, file)}: ${s}`),
    );
    expect(found).toEqual([]);
  });
});
