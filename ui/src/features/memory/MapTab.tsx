// Map: facts as dots, linked where they are close in meaning, laid out by d3-force. The layout
// runs to its end before drawing (no animation), so the picture is stable and cheap.
import { forceCenter, forceCollide, forceLink, forceManyBody, forceSimulation, type SimulationNodeDatum } from 'd3-force';
import { useMemo, useState } from 'react';
import type { GraphLink, GraphNode, MemoryGraph } from '../../api';
import { EmptyState, ErrorNotice, Loading } from '../../components/Page';
import { MemoryIcon } from '../../components/icons';
import { asError, useMemoryGraph } from './queries';

export const EMPTY_MAP = 'The map fills in as Sentient remembers things about you.';
const WIDTH = 720;
const HEIGHT = 460;

type Placed = GraphNode & SimulationNodeDatum;

/** Positions for every node (links pull close facts together). */
export function layout(graph: MemoryGraph): { nodes: Placed[]; links: Array<GraphLink & { a: Placed; b: Placed }> } {
  const nodes: Placed[] = graph.nodes.map((n) => ({ ...n }));
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const links = graph.links
    .map((l) => ({ ...l, a: byId.get(l.source), b: byId.get(l.target) }))
    .filter((l): l is GraphLink & { a: Placed; b: Placed } => Boolean(l.a && l.b));
  const simulation = forceSimulation(nodes)
    .force('charge', forceManyBody().strength(-60))
    .force('center', forceCenter(WIDTH / 2, HEIGHT / 2))
    .force('collide', forceCollide(14))
    .force(
      'link',
      forceLink(links.map((l) => ({ source: l.a, target: l.b, value: l.value }))).distance((l) => 120 * (1 - (l.value ?? 0)) + 30),
    )
    .stop();
  for (let i = 0; i < 200; i += 1) simulation.tick();
  for (const n of nodes) {
    n.x = Math.min(WIDTH - 10, Math.max(10, n.x ?? WIDTH / 2));
    n.y = Math.min(HEIGHT - 10, Math.max(10, n.y ?? HEIGHT / 2));
  }
  return { nodes, links };
}

export function MapTab() {
  const graph = useMemoryGraph(true);
  const [picked, setPicked] = useState<Placed | null>(null);
  const placed = useMemo(() => (graph.data ? layout(graph.data) : null), [graph.data]);
  if (graph.isPending) return <Loading label="Drawing the map…" />;
  if (graph.error) return <ErrorNotice error={asError(graph.error)} prefix="Couldn't draw the map." onRetry={() => void graph.refetch()} />;
  if (!placed || placed.nodes.length === 0)
    return (
      <EmptyState icon={<MemoryIcon size={28} />} title="Nothing on the map yet">
        <p>{EMPTY_MAP}</p>
      </EmptyState>
    );
  return (
    <div className="memory-map">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={`Memory map: ${placed.nodes.length} memories, ${placed.links.length} links`}>
        {placed.links.map((l) => (
          <line key={`${l.source}-${l.target}`} x1={l.a.x} y1={l.a.y} x2={l.b.x} y2={l.b.y} className="map-link" strokeOpacity={l.value ?? 0.5} />
        ))}
        {placed.nodes.map((n) => (
          <g key={n.id} transform={`translate(${n.x},${n.y})`} className="map-node" data-testid="map-node" onClick={() => setPicked(n)}>
            <circle r={picked?.id === n.id ? 9 : 7} />
            <title>{n.title}</title>
            <text x={10} y={4}>
              {n.label}
            </text>
          </g>
        ))}
      </svg>
      {picked ? (
        <p className="card memory-picked" role="status">
          {picked.content} <span className="muted">({picked.topics.join(' · ')})</span>
        </p>
      ) : (
        <p className="muted">Click a dot to read it. Lines join memories close in meaning.</p>
      )}
    </div>
  );
}
