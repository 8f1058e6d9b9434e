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
		const first = identities.begin('c1', request('a', {capabilities: {roots: {}}}), quiet);
		first.end();
		const again = identities.begin('c1', request('a', {capabilities: {roots: {}}}), quiet);
		expect(again.client).toBe(first.client);
		expect(first.client.name).toBe('a');
		expect(first.client.declaredCapabilities).toEqual({roots: {}});
		expect(identities.begin('c2', request('a', {capabilities: {roots: {}}}), quiet).client).not.toBe(first.client);
		expect(clients.size).toBe(2);
	});

	it('drops a connection\'s identities when it closes, as a closed session is removed', () => {
		const clients = new ClientRegistry();
		const removed: ClientRecord[] = [];
		clients.on('removed', record => removed.push(record));
		const identities = new ModernClients({clients, kind: 'http'});
		const bound = identities.begin('c1', request('a'), quiet);
		identities.begin('c2', request('a'), quiet);
		identities.dropConnection('c1');
		expect(removed).toEqual([bound.client]);
		expect(identities.size).toBe(1);
	});

	it('keeps at most maxIdentities, dropping the least recently used one with no request in flight', () => {
		const clients = new ClientRegistry();
		const identities = new ModernClients({clients, kind: 'stdio', maxIdentities: 2});
		const busy = identities.begin('c', request('busy'), quiet);
		const idle = identities.begin('c', request('idle'), quiet);
		idle.end();
		const third = identities.begin('c', request('third'), quiet);
		expect(identities.size).toBe(2);
		expect(clients.has(idle.client)).toBe(false);
		expect(clients.has(busy.client)).toBe(true);
		expect(clients.has(third.client)).toBe(true);
	});

	it('forgets an identity once it has had no request in flight for idleMs', () => {
		vi.useFakeTimers();
		const clients = new ClientRegistry();
		const identities = new ModernClients({clients, kind: 'http', idleMs: 1000});
		const bound = identities.begin('c', request('a'), quiet);
		vi.advanceTimersByTime(5000);
		expect(clients.has(bound.client)).toBe(true);
		bound.end();
		vi.advanceTimersByTime(999);
		expect(clients.has(bound.client)).toBe(true);
		// A request in time resets the clock.
		identities.begin('c', request('a'), quiet).end();
		vi.advanceTimersByTime(999);
		expect(clients.has(bound.client)).toBe(true);
		vi.advanceTimersByTime(1);
		expect(clients.has(bound.client)).toBe(false);
	});

	it('sends an upstream\'s log message to each request in flight whose level admits it, tied to that request', () => {
		const clients = new ClientRegistry();
		const identities = new ModernClients({clients, kind: 'http'});
		const sent: string[] = [];
		const verbose = identities.begin('c', request('a', {logLevel: 'debug'}), (_method, params) => sent.push(`debug-call:${String(params['level'])}`));
		identities.begin('c', request('a', {logLevel: 'error'}), (_method, params) => sent.push(`error-call:${String(params['level'])}`));
		identities.begin('c', request('a'), (_method, params) => sent.push(`no-level:${String(params['level'])}`));
		// The upstreams are asked for the most verbose level of the requests in flight.
		expect(verbose.client.logLevel).toBe('debug');
		verbose.client.peer!.log({level: 'info', data: 'x'});
		verbose.client.peer!.log({level: 'critical', data: 'y'});
		expect(sent).toEqual(['debug-call:info', 'debug-call:critical', 'error-call:critical']);
	});
});
