import {afterEach, describe, expect, it, vi} from 'vitest';
import {ClientRegistry, type ClientRecord} from '../../../../source/core/engine/clients/clients.js';
import {ModernClients, modernClientKey} from '../../../../source/core/gateway/modern-clients.js';
import type {ModernRequest} from '../../../../source/core/gateway/protocol-era.js';

const request = (name: string, extra: Partial<ModernRequest> = {}): ModernRequest => ({revision: '2026-07-28', capabilities: {}, clientInfo: {name, version: '1'}, logLevel: undefined, ...extra});
const quiet = () => {};

afterEach(() => {
	vi.useRealTimers();
});

describe('modern client identities', () => {
	it('derives one identity from the connection, clientInfo and capabilities, and from nothing else', () => {
		const key = modernClientKey('c1', request('a'));
		expect(modernClientKey('c1', request('a', {logLevel: 'debug', revision: '2026-07-28'}))).toBe(key);
		expect(modernClientKey('c1', {clientInfo: {name: 'a', version: '1'}, capabilities: {}})).toBe(key);
		expect(modernClientKey('c2', request('a'))).not.toBe(key);
		expect(modernClientKey('c1', request('b'))).not.toBe(key);
		expect(modernClientKey('c1', request('a', {capabilities: {sampling: {}}}))).not.toBe(key);
		// Key order in the capabilities does not make another client.
		expect(modernClientKey('c1', request('a', {capabilities: {sampling: {}, roots: {}}}))).toBe(modernClientKey('c1', request('a', {capabilities: {roots: {}, sampling: {}}})));
	});

	it('serves one client\'s requests as one record and keeps clients on other connections apart', () => {
		const clients = new ClientRegistry();
		const identities = new ModernClients({clients, kind: 'http'});
		const first = identities.begin('c1', request('a', {capabilities: {roots: {}}}), quiet, 1);
		first.end();
		const again = identities.begin('c1', request('a', {capabilities: {roots: {}}}), quiet, 2);
		expect(again.client).toBe(first.client);
		expect(first.client.name).toBe('a');
		expect(first.client.declaredCapabilities).toEqual({roots: {}});
		expect(identities.begin('c2', request('a', {capabilities: {roots: {}}}), quiet, 3).client).not.toBe(first.client);
		expect(clients.size).toBe(2);
	});

	it('drops every identity when the endpoint closes, as closed sessions are removed', () => {
		const clients = new ClientRegistry();
		const removed: ClientRecord[] = [];
		clients.on('removed', record => removed.push(record));
		const identities = new ModernClients({clients, kind: 'http'});
		const bound = identities.begin('c1', request('a'), quiet, 4);
		const other = identities.begin('c2', request('a'), quiet, 5);
		identities.close();
		expect(removed).toEqual([bound.client, other.client]);
		expect(identities.size).toBe(0);
	});

	it('keeps at most maxIdentities, dropping the least recently used one with no request in flight', () => {
		const clients = new ClientRegistry();
		const identities = new ModernClients({clients, kind: 'stdio', maxIdentities: 2});
		const busy = identities.begin('c', request('busy'), quiet, 6);
		const idle = identities.begin('c', request('idle'), quiet, 7);
		idle.end();
		const third = identities.begin('c', request('third'), quiet, 8);
		expect(identities.size).toBe(2);
		expect(clients.has(idle.client)).toBe(false);
		expect(clients.has(busy.client)).toBe(true);
		expect(clients.has(third.client)).toBe(true);
	});

	it('forgets an identity once it has had no request in flight for idleMs', () => {
		vi.useFakeTimers();
		const clients = new ClientRegistry();
		const identities = new ModernClients({clients, kind: 'http', idleMs: 1000});
		const bound = identities.begin('c', request('a'), quiet, 9);
		vi.advanceTimersByTime(5000);
		expect(clients.has(bound.client)).toBe(true);
		bound.end();
		vi.advanceTimersByTime(999);
		expect(clients.has(bound.client)).toBe(true);
		// A request in time resets the clock.
		identities.begin('c', request('a'), quiet, 10).end();
		vi.advanceTimersByTime(999);
		expect(clients.has(bound.client)).toBe(true);
		vi.advanceTimersByTime(1);
		expect(clients.has(bound.client)).toBe(false);
	});

	it('sends an upstream\'s log message to each request in flight whose level admits it, tied to that request', () => {
		const clients = new ClientRegistry();
		const identities = new ModernClients({clients, kind: 'http'});
		const sent: string[] = [];
		const verbose = identities.begin('c', request('a', {logLevel: 'debug'}), (_method, params) => sent.push(`debug-call:${String(params['level'])}`), 11);
		identities.begin('c', request('a', {logLevel: 'error'}), (_method, params) => sent.push(`error-call:${String(params['level'])}`), 12);
		identities.begin('c', request('a'), (_method, params) => sent.push(`no-level:${String(params['level'])}`), 13);
		// The upstreams are asked for the most verbose level of the requests in flight.
		expect(verbose.client.logLevel).toBe('debug');
		verbose.client.peer!.log({level: 'info', data: 'x'});
		verbose.client.peer!.log({level: 'critical', data: 'y'});
		expect(sent).toEqual(['debug-call:info', 'debug-call:critical', 'error-call:critical']);
	});

	it('sends an upstream\'s log message only to the requests in flight to that upstream, directly or through a held call', () => {
		const clients = new ClientRegistry();
		const identities = new ModernClients({clients, kind: 'http'});
		const sent: string[] = [];
		const toA = identities.begin('c', request('a', {logLevel: 'debug'}), (_method, params) => sent.push(`call-to-a:${String(params['data'])}`), 'r1');
		identities.begin('c', request('a', {logLevel: 'debug'}), (_method, params) => sent.push(`listen:${String(params['data'])}`), 'r2');
		identities.begin('c', request('a', {logLevel: 'debug'}), (_method, params) => sent.push(`retry-to-b:${String(params['data'])}`), 'r3');
		const record = toA.client;
		record.callBegan('a', 'r1');
		// A held call runs upstream under hangar's own id; the client's request waiting on it now is its round.
		record.callBegan('b', 'hangar-held-1');
		record.heldCalls.set('hangar-held-1', {capabilities: {}, who: 'the client', roundId: 'r3', ask: async () => ({})});
		record.peer!.log({level: 'info', data: 'from-a'}, 'a');
		record.peer!.log({level: 'info', data: 'from-b'}, 'b');
		record.peer!.log({level: 'info', data: 'from-c'}, 'c');
		expect(sent).toEqual(['call-to-a:from-a', 'retry-to-b:from-b']);
	});

	it('sends a log message its upstream tied to one call to that call\'s request only (a held call\'s current round), at its level', () => {
		const clients = new ClientRegistry();
		const identities = new ModernClients({clients, kind: 'http'});
		const sent: string[] = [];
		const first = identities.begin('c', request('a', {logLevel: 'debug'}), (_method, params) => sent.push(`r1:${String(params['data'])}`), 'r1');
		identities.begin('c', request('a', {logLevel: 'error'}), (_method, params) => sent.push(`r2:${String(params['data'])}`), 'r2');
		identities.begin('c', request('a', {logLevel: 'debug'}), (_method, params) => sent.push(`r3:${String(params['data'])}`), 'r3');
		const record = first.client;
		record.callBegan('a', 'r1');
		record.callBegan('a', 'r2');
		record.callBegan('a', 'hangar-held-1');
		record.heldCalls.set('hangar-held-1', {capabilities: {}, who: 'the client', roundId: 'r3', ask: async () => ({})});
		record.peer!.log({level: 'info', data: 'of-r1'}, 'a', 'r1');
		record.peer!.log({level: 'info', data: 'of-r2'}, 'a', 'r2');
		record.peer!.log({level: 'info', data: 'of-held'}, 'a', 'hangar-held-1');
		// r2 asked for errors only: its own info message is not for it either.
		expect(sent).toEqual(['r1:of-r1', 'r3:of-held']);
	});
});
