/**
 * OpenTelemetry traces of the requests hangar routes to upstreams: a span
 * per client request (kind server) with a child span for the upstream call
 * (kind client), carrying the upstream, the tool or target, the outcome,
 * the error code, the correlation id and the instance.
 *
 * - The client's W3C trace context is the parent: `traceparent`,
 *   `tracestate` and `baggage` in the request's `_meta` (the 2026-07-28
 *   spec's place; the HTTP endpoint puts the request's own headers there
 *   when `_meta` has none).
 * - The upstream gets the child span's context in `_meta` (stdio and
 *   remote alike); link/trace-headers.ts copies it to a remote upstream's
 *   HTTP headers.
 * - Off unless the standard OTEL_* variables ask for it (`tracingEnabled`):
 *   then this module is never loaded and the call path pays one undefined
 *   check. On, spans go through a batch processor to the OTLP/HTTP
 *   exporter, which reads its own OTEL_EXPORTER_OTLP_* variables.
 */
import {ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type TextMapGetter, type TextMapSetter, type Tracer} from '@opentelemetry/api';
import {CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator} from '@opentelemetry/core';
import {detectResources, envDetector, resourceFromAttributes, type Resource} from '@opentelemetry/resources';
import {BatchSpanProcessor, TracerProvider, type SpanExporter, type SpanProcessor} from '@opentelemetry/sdk-trace';
import {HangarError, JsonRpcError} from '../../base/errors.js';
import {hangarVersion} from '../../wire/protocol.js';
import type {RequestTracing, TraceScope} from './trace-scope.js';
import type {RequestContext} from '../request-context.js';
import type {Logger} from '../../base/logger.js';
import {maskText, maskTextWithin} from '../../base/secret-mask.js';
import {callPreviewChars} from '../call-log.js';
import {otlpTracesUrl, watchedExporter} from './trace-export-watch.js';

export {otlpTracesUrl};

const propagator = new CompositePropagator({propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()]});

const metaGetter: TextMapGetter<Record<string, unknown>> = {
	keys: carrier => Object.keys(carrier),
	get: (carrier, key) => {
		const value = carrier[key];
		return typeof value === 'string' ? value : undefined;
	},
};

const metaSetter: TextMapSetter<Record<string, unknown>> = {
	set: (carrier, key, value) => {
		carrier[key] = value;
	},
};

/** The W3C keys hangar reads from a client's `_meta` and writes to an upstream's. */
export const traceKeys = ['traceparent', 'tracestate', 'baggage'] as const;

/**
 * What the outcome of a request was, for its spans. The message goes to the
 * collector: masked and cut as the calls log masks and cuts it, since an
 * upstream's error may quote a secret of its config (a token it was given)
 * and be megabytes long.
 */
function describe(error: unknown): {code: string; message: string} {
	if (error instanceof HangarError) return {code: error.codeName, message: maskTextWithin(error.message, callPreviewChars)};
	if (error instanceof JsonRpcError) return {code: String(error.code), message: maskTextWithin(error.message, callPreviewChars)};
	return {code: 'error', message: maskTextWithin(error instanceof Error ? error.message : String(error), callPreviewChars)};
}

/** error.type of a tool call answered with a result marked isError (the OpenTelemetry MCP conventions' value). */
export const toolErrorType = 'tool_error';

export class RequestTracer implements RequestTracing {
	private readonly tracer: Tracer;

	constructor(private readonly provider: TracerProvider) {
		this.tracer = provider.getTracer('mcp-hangar', hangarVersion);
	}

	begin(context: RequestContext, upstream: string, name: string, instance: string): TraceScope {
		// A resource's URI may carry a token in its query or user part (a tool's or prompt's name does not).
		const target = context.method === 'resources/read' ? maskText(name) : name;
		const meta = context.meta;
		const parent: Context = meta === undefined ? ROOT_CONTEXT : propagator.extract(ROOT_CONTEXT, meta, metaGetter);
		const attributes = {
			'mcp.method.name': context.method,
			'hangar.upstream': upstream,
			'hangar.target': target,
			'hangar.instance': instance,
			...(context.method === 'tools/call' ? {'gen_ai.tool.name': target} : {}),
			...(context.correlationId === undefined ? {} : {'hangar.correlation_id': context.correlationId}),
			...(typeof context.client?.name === 'string' ? {'hangar.client': context.client.name} : {}),
			'jsonrpc.request.id': String(context.id),
		};
		const server = this.tracer.startSpan(`${context.method} ${upstream}/${target}`, {kind: SpanKind.SERVER, attributes}, parent);
		const client = this.tracer.startSpan(`${context.method} ${target}`, {kind: SpanKind.CLIENT, attributes: {'hangar.upstream': upstream, 'hangar.target': target, 'hangar.instance': instance}}, trace.setSpan(parent, server));
		// The client's _meta, with the upstream call's span as the upstream's parent.
		const forwarded: Record<string, unknown> = {...meta};
		for (const key of traceKeys) delete forwarded[key];
		propagator.inject(trace.setSpan(parent, client), forwarded, metaSetter);
		return {
			meta: forwarded,
			end: (outcome, error) => {
				for (const span of [client, server]) end(span, outcome, error);
			},
		};
	}

	async shutdown(): Promise<void> {
		await this.provider.shutdown();
	}
}

function end(span: Span, outcome: string, error: unknown): void {
	span.setAttribute('hangar.outcome', outcome);
	// The upstream answered, but its tool failed: an error to whoever watches the trace, though not to JSON-RPC.
	if (outcome === 'tool-error') {
		span.setAttribute('error.type', toolErrorType);
		span.setStatus({code: SpanStatusCode.ERROR});
	} else if (error !== undefined) {
		const {code, message} = describe(error);
		span.setAttribute('hangar.error_code', code);
		span.setAttribute('error.type', code);
		span.setStatus({code: SpanStatusCode.ERROR, message});
	}

	span.end();
}

/** service.name mcp-hangar and hangar's version, under `overrides` (what the OTEL_* variables say). */
function hangarResource(overrides?: Resource): Resource {
	const own = resourceFromAttributes({'service.name': 'mcp-hangar', 'service.version': hangarVersion});
	return overrides === undefined ? own : own.merge(overrides);
}

/** A tracer over `processor` (tests give one with an in-memory exporter). */
export function tracerWith(processor: SpanProcessor, resource: Resource = hangarResource()): RequestTracer {
	return new RequestTracer(new TracerProvider({resource, spanProcessors: [processor]}));
}

/**
 * The tracer the OTEL_* variables ask for: spans batched (OTEL_BSP_*) to the OTLP/HTTP
 * exporter (endpoint, headers and timeouts from OTEL_EXPORTER_OTLP_*),
 * its failures logged to `logger`, the resource's attributes from
 * OTEL_RESOURCE_ATTRIBUTES and service.name from OTEL_SERVICE_NAME
 * (default mcp-hangar).
 */
export async function tracerFromEnv(env: NodeJS.ProcessEnv, logger: Logger): Promise<RequestTracer> {
	const {OTLPTraceExporter} = await import('@opentelemetry/exporter-trace-otlp-http');
	// A failed export is logged (once per run of failures), not only counted inside the exporter.
	const exporter: SpanExporter = watchedExporter(new OTLPTraceExporter(), otlpTracesUrl(env), logger);
	// OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME (which wins over the former's service.name), read by the SDK's detector from process.env.
	return tracerWith(new BatchSpanProcessor({...batchSettings(env, logger), exporter}), hangarResource(detectResources({detectors: [envDetector]})));
}

/** The standard variables of the batch span processor, and its option each sets. */
const batchVariables = {
	OTEL_BSP_SCHEDULE_DELAY: 'scheduledDelayMillis',
	OTEL_BSP_EXPORT_TIMEOUT: 'exportTimeoutMillis',
	OTEL_BSP_MAX_QUEUE_SIZE: 'maxQueueSize',
	OTEL_BSP_MAX_EXPORT_BATCH_SIZE: 'maxExportBatchSize',
} as const;

type BatchSettings = Partial<Record<(typeof batchVariables)[keyof typeof batchVariables], number>>;

/**
 * The batch processor's settings from the OTEL_BSP_* variables. The SDK's
 * processor (3.x) no longer reads them itself; unset ones keep its defaults
 * (5 s, 30 s, 2,048 spans queued, 512 a batch). A value that is not a
 * whole number (at least 1 for the sizes) is named in a warning and left
 * at its default.
 */
export function batchSettings(env: NodeJS.ProcessEnv, logger: Logger): BatchSettings {
	const settings: BatchSettings = {};
	for (const [variable, option] of Object.entries(batchVariables)) {
		const raw = env[variable]?.trim();
		if (raw === undefined || raw === '') continue;
		const value = Number(raw);
		const least = option === 'maxQueueSize' || option === 'maxExportBatchSize' ? 1 : 0;
		if (Number.isInteger(value) && value >= least) settings[option] = value;
		else logger.warn(`${variable}=${JSON.stringify(raw)} is not a whole number of ${least === 1 ? 'spans (at least 1)' : 'milliseconds'}; the OpenTelemetry default is used`);
	}

	return settings;
}
