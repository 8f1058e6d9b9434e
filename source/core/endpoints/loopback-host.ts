/**
 * Loopback names, for the DNS-rebinding check of every HTTP port hangar
 * listens on (serve --http's, hangar.metricsPort's): a page on the web whose
 * name resolves to 127.0.0.1 reaches a loopback port, but its requests carry
 * that name in Host.
 */
import net from 'node:net';

/** Whether `host` is a loopback name or address (what only this machine can reach). */
export function isLoopbackHost(host: string): boolean {
	const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
	if (bare.toLowerCase() === 'localhost') return true;
	if (net.isIPv4(bare)) return bare.startsWith('127.');
	if (net.isIPv6(bare)) return bare === '::1' || /^::ffff:127\./i.test(bare);
	return false;
}

/** The host name of a Host header value ("127.0.0.1:8080", "[::1]:80", "localhost"). */
export function hostName(hostHeader: string): string {
	if (hostHeader.startsWith('[')) return hostHeader.slice(0, hostHeader.indexOf(']') + 1);
	const colon = hostHeader.lastIndexOf(':');
	return colon === -1 ? hostHeader : hostHeader.slice(0, colon);
}

/** Whether a request's Host header names loopback (an absent one does not). */
export function hostIsLoopback(hostHeader: string | undefined): boolean {
	return hostHeader !== undefined && isLoopbackHost(hostName(hostHeader));
}
