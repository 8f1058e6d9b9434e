/**
 * Two lines on every screen: which config, how long hangar has run, how many
 * MCP clients are attached; then how many upstreams are in each state, and
 * where hangar's log goes. Attached to a supervisor another process owns,
 * the first line names that process, and data that is not fresh says how
 * old it is and why, first thing on the second line.
 */
import {Box} from 'ink';
import type {UpstreamState} from '../../core/engine/upstream/upstream-state.js';
import {count, cutLeft, printable, uptime} from './cell-format.js';
import {activeClientCount, mcpClientCount, type HangarSnapshot} from './hangar-source.js';
import {Segments, segmentsLength, type Segment} from './Segments.js';
import {stateTone, statesByRank} from './state-style.js';
import {useTuiState} from './tui-context.js';

function stateCounts(states: readonly UpstreamState[]): Segment[] {
	const segments: Segment[] = [];
	for (const state of statesByRank) {
		const n = states.filter(candidate => candidate === state).length;
		if (n === 0) continue;
		segments.push({text: '  '}, {text: `${n} `}, {text: state, tone: stateTone[state]});
	}

	return segments;
}

/**
 * What the definitions cost a client's context, and what the other
 * exposure would change: "~26.9k tokens to each client (search exposure:
 * -20.1k)". Estimates (see core/engine/upstream/context-cost.ts).
 */
export function contextSegments(context: HangarSnapshot['context'] | undefined): Segment[] {
	if (context === undefined) return [];
	const saving = context.direct - context.search;
	const other =
		context.exposure === 'direct'
			? saving > 0
				? `search exposure would save ~${count(saving)}`
				: ''
			: `search exposure; direct: ~${count(context.direct)}`;
	return [{text: `  ~${count(context.current)} tokens to each client`}, ...(other === '' ? [] : [{text: ` (${other})`, tone: {dim: true}}])];
}

/** `left`, then `right` pushed to the end of the line if it fits. */
function spread(left: Segment[], right: Segment[], width: number): Segment[] {
	const gap = width - segmentsLength(left) - segmentsLength(right);
	return gap >= 2 ? [...left, {text: ' '.repeat(gap)}, ...right] : left;
}

/** How long hangar has run, as the header's right end says it. */
const upFor = (snapshot: Pick<HangarSnapshot, 'now' | 'startedAt'>): string => `  up ${uptime((snapshot.now - snapshot.startedAt) / 1000)}`;

export function Header() {
	const {snapshot, size, layout} = useTuiState();
	const width = size.columns;
	const clients = mcpClientCount(snapshot);
	const idle = clients - activeClientCount(snapshot);
	// The uptime ticks: drawn as its own text, so the rest of the line stays the same string each second.
	const right: Segment[] = [{text: `clients ${clients}${idle > 0 ? ` (${idle} idle)` : ''}`}, {text: upFor(snapshot), ticks: true, live: upFor}];
	const title: Segment = {text: 'mcp-hangar', tone: {bold: true, color: 'cyan'}};
	const total = snapshot.entries.length;
	const counts = stateCounts(snapshot.entries.map(entry => entry.state));
	const stale: Segment[] = snapshot.stale === undefined ? [] : [{text: `  ⚠ ${snapshot.stale.seconds}s old: ${printable(snapshot.stale.why)}`, tone: {color: 'red', bold: true}}];
	// The file on disk says something else than what runs (a refused or pending reload): said before anything else on the line.
	const drift: Segment[] = snapshot.config?.drift == null ? [] : [{text: `  ⚠ ${printable(snapshot.config.drift)}`, tone: {color: 'yellow', bold: true}}];

	if (layout === 'compact') {
		return (
			<Box flexDirection="column">
				<Segments segments={spread([title], right, width)} />
				<Segments segments={[{text: `${total} total`}, ...counts, ...stale, ...drift]} />
			</Box>
		);
	}

	const owner: Segment[] = snapshot.owner === undefined ? [] : [{text: `attached to ${printable(snapshot.owner)}`, tone: {color: 'cyan'}}, {text: '  '}];
	const pathRoom = Math.max(10, width - 'mcp-hangar  '.length - segmentsLength(owner) - segmentsLength(right) - 2);
	const first: Segment[] = [title, {text: '  '}, ...owner, {text: cutLeft(snapshot.configPath, pathRoom), tone: {dim: true}}];
	const second: Segment[] = [{text: `${total} upstream${total === 1 ? '' : 's'}:`}, ...counts, ...stale, ...drift];
	if (snapshot.notice !== undefined) second.push({text: `  ${snapshot.notice}`, tone: {color: 'yellow'}});
	// Only when it fits whole beside the rest: the states and warnings come first.
	const cost = contextSegments(snapshot.context);
	if (segmentsLength(second) + segmentsLength(cost) <= width) second.push(...cost);
	const logRoom = width - segmentsLength(second) - 'log '.length - 2;
	const log: Segment[] = logRoom >= 12 ? [{text: 'log ', tone: {dim: true}}, {text: cutLeft(snapshot.logFile, logRoom), tone: {dim: true}}] : [];
	return (
		<Box flexDirection="column">
			<Segments segments={spread(first, right, width)} />
			<Segments segments={spread(second, log, width)} />
		</Box>
	);
}
