/**
 * A sign-in that fails after its URL was shown (the browser never came
 * back, the authorization server refused, a wrong issuer): the status of
 * its upstream says so (`signIn`, engine/sign-in-start.ts), and the message
 * that showed the URL and "hangar waits for it" is replaced by the failure
 * and its reason, so the screen never keeps waiting for a sign-in that is
 * over. Only the attempt that message was about: an older failure does not
 * replace a newer attempt's URL.
 */
import {useEffect} from 'react';
import type {StatusEntry} from '../../core/views/views.js';
import type {Message, UiAction} from './ui-state.js';

/** The failure message of the sign-in `message` waits for, once `entries` tell it failed; undefined otherwise. */
export function signInFailure(message: Message | undefined, entries: readonly StatusEntry[]): Message | undefined {
	const wait = message?.signIn;
	if (wait === undefined) return undefined;
	const attempt = entries.find(entry => entry.name === wait.upstream)?.signIn;
	if (attempt?.state !== 'failed' || attempt.startedAt !== wait.startedAt) return undefined;
	return {tone: 'error', text: `Signing in to "${wait.upstream}" failed: ${attempt.reason}`, hint: 'Press a to start the sign-in again; the upstream\'s log (l) has the details.'};
}

export function useSignInOutcome(message: Message | undefined, entries: readonly StatusEntry[], dispatch: (action: UiAction) => void): void {
	useEffect(() => {
		const failure = signInFailure(message, entries);
		if (failure !== undefined) dispatch({type: 'message', message: failure});
	}, [message, entries, dispatch]);
}
