/**
 * What a reload changes, judged on resolved configs: servers added, removed,
 * changed (by field; env values never named) or untouched, and the global
 * settings sorted into live, restart-every-upstream and restart-hangar.
 */
import {describe, expect, it} from 'vitest';
import {parseConfig} from '../../../../source/core/config/read-config.js';
import {describeDiff, diffConfigs, isEmptyDiff} from '../../../../source/core/engine/config/config-diff.js';

const config = (servers: Record<string, unknown>, hangar: Record<string, unknown> = {}) => parseConfig({hangar: {stateDir: '/tmp/s', ...hangar}, mcpServers: servers}, '/tmp/c.json');
const node = (extra: Record<string, unknown> = {}) => ({command: 'node', args: ['x.js'], ...extra});

describe('diffConfigs', () => {
	it('tells added, removed, changed and unchanged servers apart, naming env keys but not their values', () => {
		const diff = diffConfigs(config({a: node(), b: node(), c: node({env: {TOKEN: 'old'}})}), config({a: node(), c: node({env: {TOKEN: 'new-secret'}}), d: node()}));
		expect(diff).toMatchObject({added: ['d'], removed: ['b'], changed: [{name: 'c', fields: ['launch.env.TOKEN']}], unchanged: ['a']});
		expect(describeDiff(diff)).toBe('added d; removed b; restarted c (launch.env.TOKEN changed)');
		expect(describeDiff(diff)).not.toContain('secret');
	});

	it('counts a changed global default for every server that inherits it, and not a reordered env', () => {
		const before = config({a: node({env: {X: '1', Y: '2'}}), b: node({idleTimeoutSeconds: 5})});
		const after = config({a: node({env: {Y: '2', X: '1'}}), b: node({idleTimeoutSeconds: 5})}, {idleTimeoutSeconds: 10});
		const diff = diffConfigs(before, after);
		expect(diff.changed).toEqual([{name: 'a', fields: ['idleTimeoutMs']}]);
		expect(diff.unchanged).toEqual(['b']);
		// Server defaults live in the resolved servers, not among the settings.
		expect(diff.settings.live).toEqual([]);
	});

	it('restarts every upstream for settings they take at creation, and leaves stateDir to a restart of hangar', () => {
		const diff = diffConfigs(config({a: node()}), config({a: node()}, {healthIntervalSeconds: 1, stateDir: '/tmp/other', exposure: 'search'}));
		expect(diff.settings).toEqual({live: ['hangar.exposure'], restartUpstreams: ['hangar.healthIntervalSeconds'], restartHangar: ['hangar.stateDir']});
		expect(diff.changed).toEqual([{name: 'a', fields: ['hangar.healthIntervalSeconds']}]);
		expect(describeDiff(diff)).toContain('not applied: hangar.stateDir (needs a restart of hangar)');
	});

	it('finds nothing to do in the same config', () => {
		const diff = diffConfigs(config({a: node()}), config({a: node()}));
		expect(isEmptyDiff(diff)).toBe(true);
		expect(describeDiff(diff)).toBe('nothing changed');
	});
});
