/**
 * The watchdog: `node watchdog.js <hangar pid>`, started detached by
 * process-registry.ts before hangar's first upstream. It reads, on stdin,
 * which hangar instance it watches (`instance <id>`) and the root of each
 * upstream tree (`root <pid> <start time>`, `gone <pid>`). When stdin ends,
 * hangar is gone (an orderly exit, or a SIGKILL no hook survives): it kills
 * whatever is left of every tree (the processes marked with this instance's
 * marker, the recorded roots while they are the processes recorded, their
 * process groups and descendants) and exits. After an orderly exit hangar
 * has stopped everything already, and it finds nothing to do.
 */
import {setMarkerFloor, signalTrees, snapshot, startTimeOf, treeMembers, type TreeRoot} from './process-tree.js';

// Nothing older than the hangar it watches can carry one of its markers (it is alive now: it just started this).
setMarkerFloor(startTimeOf(Number(process.argv[2])));

let instance: string | undefined;
const roots = new Map<number, TreeRoot>();

function onLine(line: string): void {
	const [what, first, second] = line.trim().split(' ');
	if (what === 'instance' && first !== undefined) instance = first;
	else if (what === 'root' && first !== undefined) roots.set(Number(first), {pid: Number(first), startTime: second === undefined || second === '-' ? undefined : second});
	else if (what === 'gone' && first !== undefined) roots.delete(Number(first));
}

const sleep = async (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

async function cleanUp(): Promise<void> {
	const known = [...roots.values()];
	const prefix = instance === undefined ? undefined : `${instance}.`;
	const matches = (marker: string) => prefix !== undefined && marker.startsWith(prefix);
	// Each kill is checked against a fresh snapshot (treeMembers): a recorded pid is signalled only while
	// it is the process recorded, never one that reused its number. A tree may still fork while it is being killed: look again until nothing is left (a few rounds at most).
	for (let round = 0; round < 5; round++) {
		if (signalTrees(known, matches, 'SIGKILL') === 0) return;
		await sleep(50);
		if (treeMembers(snapshot(), known, matches).length === 0) return;
	}
}

// A terminal's signals are not for it (it runs in its own session anyway); a plain kill ends it.
process.on('SIGINT', () => {});
process.on('SIGHUP', () => {});

let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
	pending += chunk;
	for (let newline = pending.indexOf('\n'); newline !== -1; newline = pending.indexOf('\n')) {
		onLine(pending.slice(0, newline));
		pending = pending.slice(newline + 1);
	}
});

let done = false;
const finish = () => {
	if (done) return;
	done = true;
	void cleanUp().finally(() => process.exit(0));
};

process.stdin.on('end', finish);
process.stdin.on('close', finish);
process.stdin.on('error', finish);
