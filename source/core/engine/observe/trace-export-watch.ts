/**
 * What becomes of the spans hangar exports. The OTLP exporter reports a
 * failed export (no collector at the endpoint, a refusal) only to its
 * callback, so a person who set OTEL_EXPORTER_OTLP_ENDPOINT to the wrong
 * port would see nothing anywhere. This wraps it: the first failure of a
 * run of them is logged as a warning naming the endpoint and the reason,
 * and the first success after them says the traces get through again.
 */
import {ExportResultCode, type ExportResult} from '@opentelemetry/core';
import type {ReadableSpan, SpanExporter} from '@opentelemetry/sdk-trace';
import type {Logger} from '../../base/logger.js';
import {maskText} from '../../base/secret-mask.js';

/** Where the OTLP/HTTP trace exporter sends spans, read from the same variables it reads. */
export function otlpTracesUrl(env: NodeJS.ProcessEnv): string {
	const traces = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'];
	if (traces !== undefined && traces !== '') return traces;
	const base = env['OTEL_EXPORTER_OTLP_ENDPOINT'];
	return `${(base === undefined || base === '' ? 'http://localhost:4318' : base).replace(/\/+$/, '')}/v1/traces`;
}

export function watchedExporter(inner: SpanExporter, where: string, logger: Logger): SpanExporter {
	let failing = false;
	const watched: SpanExporter = {
		export(spans: ReadableSpan[], done: (result: ExportResult) => void) {
			inner.export(spans, result => {
				if (result.code === ExportResultCode.FAILED) {
					if (!failing) {
						const reason = result.error === undefined ? 'the export failed' : maskText(result.error.message);
						logger.warn(
							`cannot export traces to ${maskText(where)}: ${reason}. Spans are dropped until it answers; check OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) and that the collector runs`,
						);
					}

					failing = true;
				} else if (failing) {
					failing = false;
					logger.info(`traces reach ${maskText(where)} again`);
				}

				done(result);
			});
		},
		shutdown: async () => inner.shutdown(),
	};
	if (inner.forceFlush !== undefined) watched.forceFlush = async () => inner.forceFlush!();
	return watched;
}
