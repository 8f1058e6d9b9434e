import {describe, expect, it} from 'vitest';
import {Logger} from '../../../../../source/core/base/logger.js';
import {batchSettings} from '../../../../../source/core/engine/observe/tracing.js';

function recording(): {logger: Logger; lines: string[]} {
	const lines: string[] = [];
	return {logger: new Logger(line => lines.push(line), 'warn'), lines};
}

describe('batchSettings', () => {
	it('reads the batch span processor\'s options from the OTEL_BSP_* variables, leaving unset ones to the SDK', () => {
		const {logger, lines} = recording();
		expect(batchSettings({OTEL_BSP_SCHEDULE_DELAY: '250', OTEL_BSP_EXPORT_TIMEOUT: '0', OTEL_BSP_MAX_QUEUE_SIZE: ' 100 ', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '10'}, logger)).toEqual({
			scheduledDelayMillis: 250,
			exportTimeoutMillis: 0,
			maxQueueSize: 100,
			maxExportBatchSize: 10,
		});
		expect(batchSettings({OTEL_BSP_SCHEDULE_DELAY: ''}, logger)).toEqual({});
		expect(lines).toEqual([]);
	});

	it('names a value that is not a whole number in a warning and keeps the default', () => {
		const {logger, lines} = recording();
		expect(batchSettings({OTEL_BSP_MAX_QUEUE_SIZE: '0', OTEL_BSP_SCHEDULE_DELAY: '1.5s', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '64'}, logger)).toEqual({maxExportBatchSize: 64});
		expect(lines).toHaveLength(2);
		expect(lines.join('\n')).toMatch(/OTEL_BSP_SCHEDULE_DELAY="1\.5s" is not a whole number of milliseconds; the OpenTelemetry default is used/);
		expect(lines.join('\n')).toMatch(/OTEL_BSP_MAX_QUEUE_SIZE="0" is not a whole number of spans \(at least 1\)/);
	});
});
