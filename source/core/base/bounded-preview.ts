/**
 * The writer behind the call log's previews (call-log.ts `maskedPreview`,
 * wire/forwarded-result.ts `maskedPreviewOfJson`): pieces appended up to a
 * bound of characters, past which the preview is cut and the walk that
 * feeds it stops; strings with the config's secret values masked.
 */
import {mask} from './secret-mask.js';

export class BoundedPreview {
	/** What is kept so far (concatenated: cheaper than an array joined for the few short pieces of a call's preview). */
	private kept = '';
	private used = 0;
	/** The bound was reached: nothing more is kept, and the walk should stop. */
	cut = false;

	constructor(
		private readonly limit: number,
		private readonly secrets: readonly string[],
	) {}

	put(text: string): void {
		if (this.cut) return;
		if (this.used + text.length > this.limit) {
			this.kept += text.slice(0, Math.max(0, this.limit - this.used));
			this.used = this.limit;
			this.cut = true;
			return;
		}

		this.kept += text;
		this.used += text.length;
	}

	/** `text` with every secret value masked. */
	scrub(text: string): string {
		let out = text;
		for (const secret of this.secrets) if (out.includes(secret)) out = out.replaceAll(secret, mask);
		return out;
	}

	get hasSecrets(): boolean {
		return this.secrets.length > 0;
	}

	/** The preview, with how it was cut. */
	text(): string {
		return this.cut ? `${this.kept}… (cut at ${this.limit} characters)` : this.kept;
	}
}
