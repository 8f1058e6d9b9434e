import {describe, expect, it} from 'vitest';
import {honoredFilter, listenFilter, listenLimits} from '../../../../source/core/gateway/listen.js';

describe('subscriptions/listen filters', () => {
	it('reads the filter a listen asks for, and says what is wrong with one it cannot read', () => {
		expect(listenFilter({notifications: {toolsListChanged: true, resourceSubscriptions: ['a://1', 'a://1']}})).toEqual({toolsListChanged: true, resourceSubscriptions: ['a://1']});
		expect(listenFilter({})).toMatch(/needs params\.notifications/);
		expect(listenFilter({notifications: {toolsListChanged: 'yes'}})).toMatch(/toolsListChanged must be true or false/);
		expect(listenFilter({notifications: {resourceSubscriptions: [1]}})).toMatch(/array of resource URIs/);
		const many = Array.from({length: listenLimits.uris + 1}, (_, index) => `a://${index}`);
		expect(listenFilter({notifications: {resourceSubscriptions: many}})).toMatch(/at most/);
	});

	it('honours only what was asked for and what hangar serves', () => {
		const served = {tools: {listChanged: true}, resources: {listChanged: true}};
		const asked = {toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ['a://1']};
		// No prompts served: not honoured; resources/updated wherever resources are served, as resources/subscribe is.
		expect(honoredFilter(asked, served, true)).toEqual({toolsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ['a://1']});
		// Search exposure: the tool list never changes.
		expect(honoredFilter(asked, served, false)).toEqual({resourcesListChanged: true, resourceSubscriptions: ['a://1']});
		expect(honoredFilter({toolsListChanged: false}, served, true)).toEqual({});
	});
});
