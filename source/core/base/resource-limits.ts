/**
 * The resources a supervisor runs out of (open files, processes, memory,
 * disk), named in words a person can act on. A spawn, an accept or a write
 * that fails for want of one is a fact about the machine, not a bug: the
 * operation that hit it fails with this reason, and nothing else stops.
 *
 * The open-file limit: Node raises its soft limit to the hard one when it
 * starts (node.cc, "Raise the open file descriptor limit"), so there is
 * nothing left for hangar to raise; it can only read the limit
 * (/proc/self/limits on Linux) and say, once at start, when it is low.
 */
import fs from 'node:fs';

export type FdLimit = {soft: number; hard: number};

/** The limit as last read: at the limit itself, /proc/self/limits cannot be opened. */
let lastRead: FdLimit | undefined;

/** This process's open-file limit, from /proc/self/limits (undefined where there is none, e.g. macOS). */
export function openFileLimit(): FdLimit | undefined {
	lastRead = readLimit() ?? lastRead;
	return lastRead;
}

function readLimit(): FdLimit | undefined {
	try {
		const line = fs
			.readFileSync('/proc/self/limits', 'utf8')
			.split('\n')
			.find(row => row.startsWith('Max open files'));
		const [soft, hard] = line?.slice('Max open files'.length).trim().split(/\s+/) ?? [];
		const read = (value: string | undefined): number => (value === 'unlimited' ? Infinity : Number(value));
		const limit = {soft: read(soft), hard: read(hard)};
		return Number.isNaN(limit.soft) || Number.isNaN(limit.hard) ? undefined : limit;
	} catch {
		return undefined;
	}
}

/** Below this many open files a supervisor with a few upstreams and clients runs out (each upstream holds 3 pipes, each client a socket). */
export const lowFdLimit = 256;

/** A sentence for the start log when the open-file limit is low, else undefined. */
export function lowFdLimitWarning(limit = openFileLimit()): string | undefined {
	if (limit === undefined || limit.soft >= lowFdLimit) return undefined;
	return (
		`hangar may open at most ${limit.soft} files (ulimit -n; hard limit ${limit.hard === Infinity ? 'unlimited' : limit.hard}): ` +
		'each upstream takes 3 and each client 1, so spawns and connections past that fail (EMFILE) with this reason on the upstream or client concerned. ' +
		`Raise it where hangar starts (ulimit -n ${lowFdLimit * 4}, or LimitNOFILE= for a service).`
	);
}

/** Error codes that mean a resource ran out rather than something being wrong with the request. */
const shortages: Record<string, () => string> = {
	EMFILE: () => {
		const limit = openFileLimit();
		return `hangar has as many files open as its limit allows${limit === undefined ? '' : ` (ulimit -n ${limit.soft})`}; raise the limit or serve fewer upstreams or clients`;
	},
	ENFILE: () => "the system's table of open files is full; close other programs' files or raise fs.file-max",
	EAGAIN: () => 'the system refused another process or thread for now (ulimit -u, or memory); it is retried',
	ENOMEM: () => 'the system is out of memory',
	ENOSPC: () => 'no space left on device',
	EDQUOT: () => 'the disk quota is exhausted',
};

/** What ran out, as a sentence fragment, when `code` (an errno name) means a resource ran out; undefined otherwise. */
export function describeShortage(code: string | undefined): string | undefined {
	return code !== undefined && Object.hasOwn(shortages, code) ? `${code}: ${shortages[code]!()}` : undefined;
}
