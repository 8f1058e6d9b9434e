import {describe, expect, it} from 'vitest';
import type {ServerConfig} from '../../../../../source/core/config/read-config.js';
import {describeEra, eraHint, eraView, isDualEra, launchKey, nextVerdict, type EraVerdict} from '../../../../../source/core/engine/upstream/upstream-era.js';

const config = {name: 'm', launch: {kind: 'stdio', command: 'node', args: ['server.js'], env: {}, cwd: '/tmp'}} as unknown as ServerConfig;
const moved = {...config, launch: {...config.launch, args: ['other.js']}} as ServerConfig;
const identity = (version: string) => ({serverInfo: {name: 'srv', version}, instructions: null});
const saved = (era: EraVerdict['era'], server = 'srv@1'): EraVerdict => ({era, at: 1000, protocolVersion: era === 'modern' ? '2026-07-28' : '2025-11-25', launch: launchKey(config.launch), server, dualChecked: true});

describe('an upstream\'s era verdict', () => {
	it('opens a start in the saved era only for the launch it was learned of; otherwise the start probes', () => {
		expect(eraHint(undefined, config)).toBeUndefined();
		expect(eraHint(saved('modern'), config)).toBe('modern');
		expect(eraHint(saved('legacy'), config)).toBe('legacy');
		expect(eraHint(saved('modern'), moved)).toBeUndefined();
		expect(eraView(saved('modern'), moved)).toEqual({era: null, protocolVersion: null, learnedAt: null});
		expect(eraView(saved('modern'), config)).toEqual({era: 'modern', protocolVersion: '2026-07-28', learnedAt: new Date(1000).toISOString()});
	});

	it('saves what a probe found, with its date, launch and server version', () => {
		const {verdict} = nextVerdict(undefined, {era: 'modern', protocolVersion: '2026-07-28', probed: true}, config, identity('2'), 5000);
		expect(verdict).toEqual({era: 'modern', at: 5000, protocolVersion: '2026-07-28', launch: launchKey(config.launch), server: 'srv@2', dualChecked: true});
	});

	it('saves a dual-era upstream as dual: its own starts open its 2025 mode, and 2026-07-28 clients get its era twin', () => {
		const {verdict} = nextVerdict(undefined, {era: 'legacy', protocolVersion: '2025-11-25', probed: true, dual: true}, config, identity('2'), 5000);
		expect(verdict).toMatchObject({era: 'dual', protocolVersion: '2025-11-25', dualChecked: true});
		expect(eraHint(verdict, config)).toBe('legacy');
		expect(isDualEra(verdict, config)).toBe(true);
		expect(isDualEra(verdict, moved)).toBe(false);
		expect(isDualEra(saved('legacy'), config)).toBe(false);
		expect(eraView(verdict, config)).toMatchObject({era: 'dual', protocolVersion: '2025-11-25'});
		expect(describeEra('dual', '2025-11-25')).toBe('2025-11-25 and 2026-07-28 (dual-era)');
	});

	it('probes once more an upstream saved as legacy before dual-era upstreams were told apart (it may be one); a modern verdict of then still holds', () => {
		const {dualChecked: _legacy, ...oldLegacy} = saved('legacy');
		const {dualChecked: _modern, ...oldModern} = saved('modern');
		expect(eraHint(oldLegacy, config)).toBeUndefined();
		expect(eraHint(oldModern, config)).toBe('modern');
		expect(eraView(oldLegacy, config).era).toBe('legacy');
	});

	it('saves nothing when the probe could not conclude (the 2025 initialize timed out): the next start probes again', () => {
		const {verdict, note} = nextVerdict(undefined, {era: 'modern', protocolVersion: '2026-07-28', probed: true, tentative: true}, config, identity('2'), 5000);
		expect(verdict).toBeUndefined();
		expect(note).toMatch(/not saved/);
	});

	it('keeps a verdict a start used as it was, date included, while the server version is the same', () => {
		expect(nextVerdict(saved('legacy'), {era: 'legacy', protocolVersion: '2025-11-25', probed: false}, config, identity('1'), 9000).verdict).toEqual(saved('legacy'));
	});

	it('forgets a legacy verdict when the server reports another version (its next start probes), and brings a modern one up to date', () => {
		const legacy = nextVerdict(saved('legacy'), {era: 'legacy', protocolVersion: '2025-11-25', probed: false}, config, identity('2'), 9000);
		expect(legacy.verdict).toBeUndefined();
		expect(legacy.note).toContain('srv@2 now, not srv@1');
		const modern = nextVerdict(saved('modern'), {era: 'modern', protocolVersion: '2026-07-28', probed: false}, config, identity('2'), 9000);
		expect(modern.verdict).toMatchObject({era: 'modern', at: 9000, server: 'srv@2'});
	});
});
