/**
 * What the supervisor knows of tracing: an optional `RequestTracing` that
 * opens the spans of one routed request and says what `_meta` the upstream
 * gets. The OpenTelemetry side (tracing.ts) is loaded only when
 * `tracingEnabled` says the OTEL_* variables ask for traces, so a hangar
 * that exports nothing loads none of it.
 */
import type {RequestContext} from '../request-context.js';

/** The spans of one request in flight. */
export type TraceScope = {
	/** The `_meta` to send the upstream: the client's, with the upstream call's trace context. */
	readonly meta: Record<string, unknown>;
	/** Ends the spans: the outcome, and the error when it failed. */
	end(outcome: 'ok' | 'tool-error' | 'error' | 'cancelled', error?: unknown): void;
};

export type RequestTracing = {
	/** Opens the request's span and its child for the call to `upstream` (`instance`: the instance that serves it). */
	begin(context: RequestContext, upstream: string, target: string, instance: string): TraceScope;
	/** Exports what is pending and stops. */
	shutdown(): Promise<void>;
};

/**
 * Whether the standard OpenTelemetry variables ask for traces: an OTLP
 * endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or OTEL_TRACES_EXPORTER names otlp;
 * never when OTEL_SDK_DISABLED is true or OTEL_TRACES_EXPORTER is none.
 */
export function tracingEnabled(env: NodeJS.ProcessEnv): boolean {
	if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return false;
	const exporters = (env['OTEL_TRACES_EXPORTER'] ?? '').split(',').map(name => name.trim().toLowerCase()).filter(name => name !== '');
	if (exporters.includes('none')) return false;
	if (exporters.includes('otlp')) return true;
	return (env['OTEL_EXPORTER_OTLP_ENDPOINT'] ?? '').trim() !== '' || (env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] ?? '').trim() !== '';
}
