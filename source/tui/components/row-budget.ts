/**
 * Sharing a screen's rows between sections that each want some: every
 * section gets up to an equal share, and what a small section does not use
 * goes to the larger ones, so everything is shown when it fits and the
 * longest sections are the ones cut when it does not.
 */
export function shareRows(wants: readonly number[], total: number): number[] {
	const given = wants.map(() => 0);
	let left = Math.max(0, total);
	let open = wants.map((want, index) => ({want, index})).filter(section => section.want > 0);
	while (left > 0 && open.length > 0) {
		const share = Math.max(1, Math.floor(left / open.length));
		for (const section of open) {
			const take = Math.min(share, section.want - (given[section.index] ?? 0), left);
			given[section.index] = (given[section.index] ?? 0) + take;
			left -= take;
			if (left === 0) break;
		}

		open = open.filter(section => (given[section.index] ?? 0) < section.want);
	}

	return given;
}
