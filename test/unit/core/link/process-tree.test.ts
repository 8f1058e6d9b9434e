import {describe, expect, it} from 'vitest';
import {parsePs, treeMembers, type ProcessInfo} from '../../../../source/core/link/process-tree.js';

const p = (pid: number, ppid: number, pgid: number, marker?: string, startTime = `t${pid}`): ProcessInfo => ({pid, ppid, pgid, startTime, marker});

describe('an upstream process tree', () => {
	// 100: the upstream (group leader, marked). 101: its child in the group. 102: a setsid grandchild, reparented
	// to init, marked. 103: a child of 102 that cleared its environment. 104: in the group, env cleared.
	// 200: another upstream's tree. 300: unrelated, in a group whose id happens to be 100's neighbour.
	const processes = [
		p(1, 0, 1),
		p(100, 50, 100, 'hangar-a.1'),
		p(101, 100, 100, 'hangar-a.1'),
		p(102, 1, 102, 'hangar-a.1'),
		p(103, 102, 102),
		p(104, 1, 100),
		p(200, 50, 200, 'hangar-a.2'),
		p(300, 1, 300),
	];

	it('is the root, its group, every marked process and their descendants', () => {
		const members = treeMembers(processes, [{pid: 100, startTime: 't100'}], marker => marker === 'hangar-a.1');
		expect(members.map(info => info.pid).sort()).toEqual([100, 101, 102, 103, 104]);
	});

	it('is found by marker alone once the root is gone', () => {
		const gone = processes.filter(info => info.pid !== 100);
		const members = treeMembers(gone, [{pid: 100, startTime: 't100'}], marker => marker.startsWith('hangar-a.'));
		expect(members.map(info => info.pid).sort()).toEqual([101, 102, 103, 104, 200]);
	});

	it('never takes a process that reused the root\'s pid, nor that process\'s group', () => {
		const reused = [p(100, 1, 100, undefined, 'later'), p(105, 100, 100), p(300, 1, 300)];
		expect(treeMembers(reused, [{pid: 100, startTime: 't100'}], () => false)).toEqual([]);
	});

	it('reads ps output, start times with spaces included', () => {
		expect(parsePs('  1     0     1 Mon Nov 23 20:45:10 2026\n 4242  1 4242 Tue Nov 24 01:02:03 2026\n\n')).toEqual([
			{pid: 1, ppid: 0, pgid: 1, startTime: 'Mon Nov 23 20:45:10 2026'},
			{pid: 4242, ppid: 1, pgid: 4242, startTime: 'Tue Nov 24 01:02:03 2026'},
		]);
	});
});
