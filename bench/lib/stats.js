/** Small numeric helpers: percentiles (nearest rank), medians, rounding, the machine description. */
import fs from 'node:fs';
import os from 'node:os';

/** Nearest-rank percentile of unsorted samples (ms). */
export function percentile(samples, p) {
	if (samples.length === 0) return null;
	const sorted = Float64Array.from(samples).sort();
	const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
	return sorted[rank];
}

export function median(samples) {
	return percentile(samples, 50);
}

export function mean(samples) {
	if (samples.length === 0) return null;
	let sum = 0;
	for (const value of samples) sum += value;
	return sum / samples.length;
}

/** p50/p95/p99/mean/max of latency samples, rounded to µs. */
export function summarize(samples) {
	return {
		n: samples.length,
		p50: round(percentile(samples, 50), 3),
		p95: round(percentile(samples, 95), 3),
		p99: round(percentile(samples, 99), 3),
		mean: round(mean(samples), 3),
		max: round(samples.length === 0 ? null : Math.max(...samples), 3),
	};
}

export function round(value, digits = 2) {
	if (value === null || value === undefined || !Number.isFinite(value)) return null;
	const factor = 10 ** digits;
	return Math.round(value * factor) / factor;
}

/** Nanoseconds from process.hrtime.bigint() differences as float ms. */
export function nsToMs(ns) {
	return Number(ns) / 1e6;
}

export function machine() {
	const cpus = os.cpus();
	let cpuModel = cpus[0]?.model ?? 'unknown';
	try {
		const info = fs.readFileSync('/proc/cpuinfo', 'utf8');
		const match = /^model name\s*:\s*(.+)$/m.exec(info);
		if (match !== null) cpuModel = match[1].trim();
	} catch {}

	return {
		nproc: os.availableParallelism?.() ?? cpus.length,
		cpuModel,
		memTotalMiB: Math.round(os.totalmem() / 1024 / 1024),
		node: process.version,
		platform: `${os.platform()} ${os.release()} ${os.arch()}`,
	};
}
