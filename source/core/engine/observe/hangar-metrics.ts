/**
 * Hangar's Prometheus metrics (prom-client): one registry per supervisor,
 * fed by the calls log (every tools/call as its record is written) and the
 * supervisor's transition events, and read from the upstreams and clients
 * at scrape time for what is a level rather than an event (state, calls in
 * flight, dropped output, context cost, sessions). The HTTP exposition is
 * the endpoints' business (`/metrics` on `serve --http`, and
 * `hangar.metricsPort`); this module only keeps the numbers.
 *
 * Cardinality is bounded, whatever clients and upstreams send:
 * - upstreams are the config's (a per-client instance, `<server>#<n>`,
 *   counts under its server's name);
 * - tool labels: the first `toolsPerUpstream` distinct tool names of each
 *   upstream keep their name, every later one is counted as "other"
 *   (a tool name is what a client asked for, and a client may ask for
 *   anything);
 * - error codes: hangar's code names or the upstream's JSON-RPC code,
 *   capped the same way per upstream;
 * - client labels: the client's name from initialize, lower-cased, every
 *   character outside [a-z0-9._-] replaced by "_", cut to 40 characters; the
 *   first `clientNames` distinct ones keep their name, later ones are
 *   "other". A session that sent no name is "unknown".
 */
import {Counter, Gauge, Histogram, Registry, collectDefaultMetrics} from 'prom-client';
import type {CallLogEntry} from '../call-log.js';
import type {Supervisor} from '../supervisor.js';
import {upstreamStates} from '../upstream/upstream-state.js';
import type {TransitionEvent} from '../upstream/upstream-state.js';
import {notificationDrops} from '../../wire/line-transport.js';

export const metricsContentType = Registry.PROMETHEUS_CONTENT_TYPE;

/** Distinct tool (and error code) labels kept per upstream before the rest count as "other". */
export const toolsPerUpstream = 100;
/** Distinct client labels kept before the rest count as "other". */
export const clientNames = 50;
export const otherLabel = 'other';

/** Call latency buckets, in seconds: from a cached answer to a slow tool near the default 60 s timeout. */
const latencyBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Keeps the first `limit` distinct values of a label (per scope), mapping every later one to "other". */
export class LabelCap {
	private readonly seen = new Map<string, Set<string>>();

	constructor(private readonly limit: number) {}

	label(scope: string, value: string): string {
		let values = this.seen.get(scope);
		if (values === undefined) {
			values = new Set();
			this.seen.set(scope, values);
		}

		if (values.has(value)) return value;
		if (values.size >= this.limit) return otherLabel;
		values.add(value);
		return value;
	}
}

/** A client's name as a label: lower case, [a-z0-9._-] only, at most 40 characters ("unknown" without a name). */
export function normalizeClientName(name: string | null | undefined): string {
	if (name === null || name === undefined || name.trim() === '') return 'unknown';
	return name.trim().toLowerCase().replaceAll(/[^a-z0-9._-]/g, '_').slice(0, 40);
}

/** The configured server an upstream's name belongs to (`fs#3`, a per-client instance, is `fs`'s). */
export function serverOf(upstream: string): string {
	const hash = upstream.lastIndexOf('#');
	return hash > 0 && /^\d+$/.test(upstream.slice(hash + 1)) ? upstream.slice(0, hash) : upstream;
}

export class HangarMetrics {
	readonly registry = new Registry();
	private readonly tools = new LabelCap(toolsPerUpstream);
	private readonly codes = new LabelCap(toolsPerUpstream);
	private readonly clients = new LabelCap(clientNames);
	private readonly calls: Counter<'upstream' | 'tool' | 'outcome'>;
	private readonly failures: Counter<'upstream' | 'tool' | 'code'>;
	private readonly latency: Histogram<'upstream'>;
	private readonly clientCalls: Counter<'client'>;
	private readonly breakerOpens: Counter<'upstream'>;
	private readonly restarts: Counter<'upstream'>;
	private readonly idleStops: Counter<'upstream'>;
	private readonly detach: Array<() => void> = [];

	constructor(private readonly supervisor: Supervisor, options: {processMetrics?: boolean} = {}) {
		const registers = [this.registry];
		if (options.processMetrics !== false) collectDefaultMetrics({register: this.registry});
		this.calls = new Counter({name: 'hangar_upstream_calls_total', help: 'Tool calls that ended, by upstream, tool and outcome (ok, tool-error, error).', labelNames: ['upstream', 'tool', 'outcome'], registers});
		this.failures = new Counter({
			name: 'hangar_upstream_call_failures_total',
			help: 'Tool calls that failed (outcome error), by upstream, tool and error code (hangar\'s code name or the upstream\'s JSON-RPC code).',
			labelNames: ['upstream', 'tool', 'code'],
			registers,
		});
		this.latency = new Histogram({name: 'hangar_upstream_call_duration_seconds', help: 'Tool call latency as the client saw it, by upstream.', labelNames: ['upstream'], buckets: latencyBuckets, registers});
		this.clientCalls = new Counter({name: 'hangar_client_calls_total', help: 'Tool calls by client name (normalised, capped; see docs/observability.md).', labelNames: ['client'], registers});
		// Every upstream has these series from its first scrape, at zero (one a reload adds too): a series that appears at 1 is no increase to Prometheus.
		const transitionCounter = (name: string, help: string): Counter<'upstream'> =>
			new Counter({
				name,
				help,
				labelNames: ['upstream'],
				registers,
				collect() {
					for (const upstream of supervisor.upstreams.keys()) this.inc({upstream}, 0);
				},
			});
		this.breakerOpens = transitionCounter('hangar_upstream_breaker_opens_total', 'Times the circuit breaker opened (ready to degraded).');
		this.restarts = transitionCounter('hangar_upstream_restarts_total', 'Automatic restarts after a crash or a failed start.');
		this.idleStops = transitionCounter('hangar_upstream_idle_stops_total', 'Stops after idleTimeoutSeconds without calls.');
		this.levels(registers);

		this.detach.push(supervisor.calls.observe((entry, context) => this.called(entry, context.client === undefined ? entry.client : context.client.name)));
		const onTransition = (event: TransitionEvent): void => this.transition(event);
		supervisor.on('transition', onTransition);
		this.detach.push(() => supervisor.off('transition', onTransition));
	}

	/** The gauges and counters read at scrape time from what the supervisor holds now. */
	private levels(registers: Registry[]): void {
		const supervisor = this.supervisor;
		const upstreams = () => supervisor.upstreams;
		new Gauge({
			name: 'hangar_upstream_state',
			help: 'The upstream\'s state: 1 for the state it is in, 0 for the others.',
			labelNames: ['upstream', 'state'],
			registers,
			collect() {
				this.reset();
				for (const [name, upstream] of upstreams()) for (const state of upstreamStates) this.set({upstream: name, state}, upstream.state === state ? 1 : 0);
			},
		});
		new Gauge({
			name: 'hangar_upstream_in_flight',
			help: 'Calls and other requests in flight now (a per-client server\'s instances counted under its name).',
			labelNames: ['upstream'],
			registers,
			collect() {
				this.reset();
				for (const [name, upstream] of upstreams()) {
					let inFlight = upstream.callsInFlight;
					for (const instance of supervisor.instancesOf(name)) inFlight += instance.upstream.callsInFlight;
					this.set({upstream: name}, inFlight);
				}
			},
		});
		new Counter({
			name: 'hangar_upstream_dropped_output_lines_total',
			help: 'Lines of an upstream\'s stderr or stdout that hangar dropped because it wrote faster than its log budget (since that upstream was created).',
			labelNames: ['upstream', 'source'],
			registers,
			collect() {
				this.reset();
				for (const [name, upstream] of upstreams()) {
					const dropped = upstream.log.dropped;
					this.inc({upstream: name, source: 'stderr'}, dropped.stderr.lines);
					this.inc({upstream: name, source: 'stdout'}, dropped.stdout.lines);
				}
			},
		});
		new Counter({
			name: 'hangar_dropped_notifications_total',
			help: 'Progress and log notifications dropped for clients that did not read as fast as they came (their answers are never dropped).',
			registers,
			collect() {
				this.reset();
				this.inc(notificationDrops.total);
			},
		});
		new Gauge({
			name: 'hangar_upstream_context_tokens',
			help: 'Estimated tokens the upstream\'s exposed tool and prompt definitions cost each client\'s context (4 characters a token).',
			labelNames: ['upstream', 'kind'],
			registers,
			collect() {
				this.reset();
				const cost = supervisor.contextCost();
				for (const [name, tokens] of Object.entries(cost.upstreams)) {
					this.set({upstream: name, kind: 'tools'}, tokens.tools);
					this.set({upstream: name, kind: 'prompts'}, tokens.prompts);
				}
			},
		});
		new Gauge({
			name: 'hangar_context_tokens',
			help: 'Estimated tokens of every definition a client is sent under the configured exposure (hangar\'s own tools included).',
			registers,
			collect() {
				this.set(supervisor.contextCost().current);
			},
		});
		const clientLabels = this.clients;
		new Gauge({
			name: 'hangar_client_sessions',
			help: 'Client sessions connected now, by client name (normalised, capped).',
			labelNames: ['client'],
			registers,
			collect() {
				this.reset();
				const counts = new Map<string, number>();
				for (const record of supervisor.clients.sessions()) {
					if (!record.listed) continue;
					const label = clientLabels.label('', normalizeClientName(record.name));
					counts.set(label, (counts.get(label) ?? 0) + 1);
				}

				for (const [client, count] of counts) this.set({client}, count);
			},
		});
	}

	/** `client`: the session's client name from initialize (null: it sent none), or an in-process caller's name. */
	private called(entry: CallLogEntry, client: string | null): void {
		const upstream = serverOf(entry.upstream);
		const tool = this.tools.label(upstream, entry.tool);
		this.calls.inc({upstream, tool, outcome: entry.outcome});
		if (entry.outcome === 'error') this.failures.inc({upstream, tool, code: this.codes.label(upstream, entry.code ?? 'unknown')});
		this.latency.observe({upstream}, entry.ms / 1000);
		this.clientCalls.inc({client: this.clients.label('', normalizeClientName(client))});
	}

	private transition(event: TransitionEvent): void {
		const upstream = serverOf(event.upstream);
		if (event.event === 'trip') this.breakerOpens.inc({upstream});
		else if (event.event === 'start' && event.from === 'dead') this.restarts.inc({upstream});
		else if (event.event === 'stop' && event.reason.startsWith('idle for')) this.idleStops.inc({upstream});
	}

	/** The exposition: Prometheus text format. */
	async text(): Promise<string> {
		return this.registry.metrics();
	}

	close(): void {
		for (const off of this.detach.splice(0)) off();
	}
}
