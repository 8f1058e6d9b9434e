/**
 * A person's OAuth sign-in in the audit trail: one `sign-in` action line
 * when the flow starts (the authorization URL exists and hangar waits for
 * the browser), and one with how it ended: `signed-in`, `failed` with why,
 * or `cancelled` (the person gave up: Ctrl-C in `mcp-hangar auth`). The
 * supervisor's restart with the new tokens is a further line, outcome
 * `done` or `refused`, written by `Supervisor.act`.
 *
 * - A sign-in the supervisor runs (the TUI's key, `hangar/sign-in` over the
 *   socket) is recorded through the supervisor's `action` event, like every
 *   person's action (engine/sign-in-start.ts).
 * - `mcp-hangar auth` runs the flow in its own process, often with no
 *   supervisor running: it appends its lines to the state dir's audit file
 *   itself (`auditSignIn`), one write a line with O_APPEND, beside the
 *   supervisor's writes, and leaves rotating the file to the supervisor.
 *
 * `via` names who asked ("a person (mcp-hangar auth)", "a person in the
 * TUI", "a person (socket#3)"). The message is what hangar says to the
 * person, masked; the authorization URL (its `state` and PKCE challenge),
 * the code, the verifier, tokens and the client secret never go in it.
 */
import {maskText} from '../../base/secret-mask.js';
import type {Logger} from '../../base/logger.js';
import type {HangarSettings} from '../../config/config-schema.js';
import type {ActionRecord} from '../supervisor.js';
import {AuditLog, type AuditAction} from './audit-log.js';

/** The steps of a person's sign-in flow, as audited. */
export type SignInOutcome = Exclude<ActionRecord['outcome'], 'done' | 'refused'>;

/** A sign-in step as an audit line (the message masked). */
export function signInAction(upstream: string, via: string, outcome: SignInOutcome, message: string, at = Date.now()): AuditAction {
	return {kind: 'action', time: new Date(at).toISOString(), action: 'sign-in', upstream, via, outcome, message: maskText(message)};
}

/** What `mcp-hangar auth` reads of the config to write its sign-in lines. */
export type SignInAuditTarget = Pick<HangarSettings, 'stateDir' | 'auditLog' | 'auditFiles'>;

/**
 * Appends a sign-in step to the audit file of `hangar.stateDir`, now, from
 * a process that does not hold the state dir (`mcp-hangar auth`). Nothing
 * when hangar.auditLog is off. A write that fails is logged, not thrown:
 * the sign-in itself goes on.
 */
export function auditSignIn(hangar: SignInAuditTarget, logger: Logger, record: AuditAction): void {
	if (!hangar.auditLog) return;
	// Never rotated from here: a supervisor may hold the file open, and would go on writing to the file renamed from under it.
	// That supervisor, or the next one to open the file, rotates it when it next writes past auditMaxBytes.
	const audit = new AuditLog(hangar.stateDir, () => ({maxBytes: Number.POSITIVE_INFINITY, files: hangar.auditFiles, arguments: false}), logger);
	audit.append(record);
	audit.close();
}
