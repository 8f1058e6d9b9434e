/**
 * Prometheus' view of a supervisor: the exposition `GET /metrics` answers,
 * on `serve --http` (behind the same bearer token and Host/Origin rules as
 * `/mcp`) and on `hangar.metricsPort`, a loopback-only port any supervisor
 * can open (the daemon a client's `--stdio` started has no HTTP endpoint of
 * its own), which checks Host as `/mcp` does (DNS rebinding). The metrics themselves are engine/observe/hangar-metrics.ts,
 * loaded only when one of these is asked for: prom-client costs start-up
 * time a supervisor that exports nothing should not pay.
 */
import {once} from 'node:events';
import http from 'node:http';
import type net from 'node:net';
import {errorMessage} from '../base/errors.js';
import type {Logger} from '../base/logger.js';
import type {HangarMetrics} from '../engine/observe/hangar-metrics.js';
import type {Supervisor} from '../engine/supervisor.js';
import {hostIsLoopback} from './loopback-host.js';

export const metricsPath = '/metrics';

/** The metrics of `supervisor`, made once (prom-client loaded on first use). */
export async function metricsOf(supervisor: Supervisor): Promise<HangarMetrics> {
	let made = madeFor.get(supervisor);
	if (made === undefined) {
		made = import('../engine/observe/hangar-metrics.js').then(({HangarMetrics}) => new HangarMetrics(supervisor));
		madeFor.set(supervisor, made);
	}

	return made;
}

const madeFor = new WeakMap<Supervisor, Promise<HangarMetrics>>();

/** Answers a scrape: GET (or HEAD) only. */
export async function serveMetrics(metrics: HangarMetrics, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
	if (req.method !== 'GET' && req.method !== 'HEAD') {
		res.writeHead(405, {'Content-Type': 'application/json', Allow: 'GET, HEAD'}).end(JSON.stringify({error: 'method_not_allowed', message: `${metricsPath} answers GET only.`}));
		return;
	}

	const text = await metrics.text();
	res.writeHead(200, {'Content-Type': metrics.registry.contentType, 'Cache-Control': 'no-store'});
	res.end(req.method === 'HEAD' ? undefined : text);
}

/**
 * Listens on 127.0.0.1:`port` for scrapes (`hangar.metricsPort`); any other
 * path is a 404. A port it cannot have is logged and the supervisor goes on
 * without it: metrics are not worth a supervisor that does not start.
 */
export async function listenMetrics(supervisor: Supervisor, port: number, logger: Logger): Promise<http.Server | undefined> {
	const metrics = await metricsOf(supervisor);
	const server = http.createServer((req, res) => {
		// It listens on loopback only; a web page whose name resolves to 127.0.0.1 (DNS rebinding) names itself in Host.
		if (!hostIsLoopback(req.headers.host)) {
			res.writeHead(403, {'Content-Type': 'application/json'}).end(JSON.stringify({error: 'forbidden_host', message: `Host header ${JSON.stringify(req.headers.host ?? '')} is not a loopback name: the metrics port accepts only localhost, 127.0.0.1 and [::1] (DNS rebinding protection).`}));
			return;
		}

		const path = (req.url ?? '/').split('?')[0];
		if (path !== metricsPath) {
			res.writeHead(404, {'Content-Type': 'application/json'}).end(JSON.stringify({error: 'not_found', message: `Not found. Metrics are served at ${metricsPath}.`}));
			return;
		}

		serveMetrics(metrics, req, res).catch((error: unknown) => {
			logger.error(`cannot serve ${metricsPath}: ${errorMessage(error)}`);
			if (!res.headersSent) res.writeHead(500).end();
		});
	});
	try {
		server.listen(port, '127.0.0.1');
		await once(server, 'listening');
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		logger.warn(`cannot serve metrics on 127.0.0.1:${port} (${code === 'EADDRINUSE' ? 'the port is in use by another process' : errorMessage(error)}); hangar runs without its metrics port: pick another hangar.metricsPort and restart`);
		server.close();
		return undefined;
	}

	// The port must not keep an exiting supervisor alive.
	server.unref();
	logger.info(`serving Prometheus metrics at http://127.0.0.1:${(server.address() as net.AddressInfo).port}${metricsPath} (hangar.metricsPort)`);
	return server;
}
