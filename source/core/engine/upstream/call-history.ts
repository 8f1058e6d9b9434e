/**
 * What an upstream's calls looked like lately, for the detail views: the last
 * finished calls (a fixed-size ring) and metrics per tool. Bounded: a ring of
 * `limit` records, and one metrics object per tool name the upstream listed
 * or was called with.
 */
import {CallMetrics} from './metrics.js';

/** One finished call. */
export type CallRecord = {at: number; tool: string; ms: number; ok: boolean; error: string | undefined};

export class CallHistory {
	readonly byTool = new Map<string, CallMetrics>();
	private readonly ring: CallRecord[] = [];
	private next = 0;

	constructor(private readonly limit = 50) {}

	remember(record: CallRecord): void {
		if (this.ring.length < this.limit) {
			this.ring.push(record);
		} else {
			this.ring[this.next] = record;
			this.next = (this.next + 1) % this.limit;
		}
	}

	/** The last finished calls, oldest first. */
	recent(): CallRecord[] {
		return this.ring.length < this.limit ? [...this.ring] : [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
	}

	/** The metrics of one tool, made on first use. */
	tool(name: string): CallMetrics {
		let metrics = this.byTool.get(name);
		if (metrics === undefined) {
			metrics = new CallMetrics();
			this.byTool.set(name, metrics);
		}

		return metrics;
	}
}
