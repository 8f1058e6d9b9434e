/**
 * Malformed and edge-case JSON-RPC messages, each with the one answer hangar
 * gives it on every transport (the rule is source/core/wire/message-classifier.ts).
 * test/e2e/json-rpc-edge-cases.test.ts sends each line to a ready session over
 * `--stdio`, over `--stdio` bridged to a running `serve`, and over
 * `serve --http`, and checks the same code and id on all three; the unit test
 * of the classifier reads it too.
 *
 * `id` is the answer's id as JSON text, exactly as it must be written:
 * `9007199254740993` must not come back as ...992. `none`: no JSON-RPC answer
 * at all (a notification or a response; over HTTP the POST gets 202, or 400
 * with an error whose id is null).
 */

export type EdgeCaseAnswer = {error: number; id: string} | {result: true; id: string} | 'none';

export type EdgeCase = {
	/** What it shows, as a sentence. */
	why: string;
	/** Exactly what is sent: one line over stdio, one POST body over HTTP. */
	line: string;
	answer: EdgeCaseAnswer;
};

const ping = (id: string, extra = '') => `{"jsonrpc":"2.0","id":${id},"method":"ping"${extra}}`;

export const edgeCases: EdgeCase[] = [
	// Not a message at all: answered with id null.
	{why: 'text that is not JSON is a parse error', line: 'this is not json', answer: {error: -32_700, id: 'null'}},
	{why: 'a cut-off object is a parse error', line: '{"jsonrpc":"2.0","id":"cut","method":"ping"', answer: {error: -32_700, id: 'null'}},
	{why: 'a batch is refused: MCP removed batches', line: `[${ping('"in-batch"')}]`, answer: {error: -32_600, id: 'null'}},
	{why: 'an empty batch is refused', line: '[]', answer: {error: -32_600, id: 'null'}},
	{why: 'a JSON string is not a message', line: '"ping"', answer: {error: -32_600, id: 'null'}},
	{why: 'JSON null is not a message', line: 'null', answer: {error: -32_600, id: 'null'}},
	{why: 'a method that is not a string, without an id, is answered with id null', line: '{"jsonrpc":"2.0","method":42}', answer: {error: -32_600, id: 'null'}},

	// The envelope.
	{why: 'a request without "jsonrpc" is refused with its id', line: '{"id":"no-version","method":"ping"}', answer: {error: -32_600, id: '"no-version"'}},
	{why: 'a request of JSON-RPC 1.0 is refused with its id', line: '{"jsonrpc":"1.0","id":"v1","method":"ping"}', answer: {error: -32_600, id: '"v1"'}},
	{why: 'an empty method is refused', line: '{"jsonrpc":"2.0","id":"empty-method","method":""}', answer: {error: -32_600, id: '"empty-method"'}},
	{why: 'a numeric method is refused', line: '{"jsonrpc":"2.0","id":"numeric-method","method":7}', answer: {error: -32_600, id: '"numeric-method"'}},
	{why: 'an id with neither a method nor a result is refused', line: '{"jsonrpc":"2.0","id":"neither"}', answer: {error: -32_600, id: '"neither"'}},
	{why: 'members JSON-RPC does not define are ignored', line: ping('"extra-member"', ',"extra":{"x":1}'), answer: {result: true, id: '"extra-member"'}},
	{why: 'a byte order mark before a message is ignored', line: `\uFEFF${ping('"bom"')}`, answer: {result: true, id: '"bom"'}},

	// Ids.
	{why: 'the largest integer JavaScript holds exactly is a usable id', line: ping('9007199254740991'), answer: {result: true, id: '9007199254740991'}},
	{why: 'a negative integer is a usable id', line: ping('-42'), answer: {result: true, id: '-42'}},
	{why: 'a big integer written as a string is a usable id', line: ping('"9007199254740993"'), answer: {result: true, id: '"9007199254740993"'}},
	{why: 'an integer beyond 2^53 is refused and echoed digit for digit', line: ping('9007199254740993'), answer: {error: -32_600, id: '9007199254740993'}},
	{why: 'a negative integer beyond 2^53 is refused and echoed digit for digit', line: ping('-9007199254740993'), answer: {error: -32_600, id: '-9007199254740993'}},
	{why: 'a fractional id is refused and echoed as written', line: ping('1.5'), answer: {error: -32_600, id: '1.5'}},
	{why: 'an id with an exponent is refused and echoed as written', line: ping('1e300'), answer: {error: -32_600, id: '1e300'}},
	{why: 'an integer written with a fraction is refused and echoed as written', line: ping('2.0'), answer: {error: -32_600, id: '2.0'}},
	{why: 'minus zero is refused and echoed as written', line: ping('-0'), answer: {error: -32_600, id: '-0'}},
	{
		why: 'a tools/call with a fractional id is refused like any other request',
		line: '{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"fx__echo","arguments":{"message":"x"}}}',
		answer: {error: -32_600, id: '1.5'},
	},
	{why: 'an id written last (as the SDK writes it) is echoed as written', line: '{"method":"ping","jsonrpc":"2.0","id":1e2}', answer: {error: -32_600, id: '1e2'}},
	{why: 'an id between other members is echoed as written', line: '{"method":"ping","id":3.25,"jsonrpc":"2.0","params":{}}', answer: {error: -32_600, id: '3.25'}},
	{why: 'a null id is refused with id null', line: ping('null'), answer: {error: -32_600, id: 'null'}},
	{why: 'an object id is refused with id null', line: ping('{"an":"object"}'), answer: {error: -32_600, id: 'null'}},
	{why: 'a boolean id is refused with id null', line: ping('true'), answer: {error: -32_600, id: 'null'}},

	// Params.
	{why: 'params that are an array are refused', line: '{"jsonrpc":"2.0","id":"array-params","method":"ping","params":[1]}', answer: {error: -32_602, id: '"array-params"'}},
	{why: 'params that are null are refused', line: '{"jsonrpc":"2.0","id":"null-params","method":"tools/list","params":null}', answer: {error: -32_602, id: '"null-params"'}},
	{why: 'a ping whose _meta is not an object is refused', line: '{"jsonrpc":"2.0","id":"meta-ping","method":"ping","params":{"_meta":5}}', answer: {error: -32_602, id: '"meta-ping"'}},
	{why: 'a tools/list whose _meta is not an object is refused', line: '{"jsonrpc":"2.0","id":"meta-list","method":"tools/list","params":{"_meta":[]}}', answer: {error: -32_602, id: '"meta-list"'}},
	{
		why: 'a tools/call whose _meta is not an object is refused the same way',
		line: '{"jsonrpc":"2.0","id":"meta-call","method":"tools/call","params":{"name":"fx__echo","arguments":{"message":"x"},"_meta":"x"}}',
		answer: {error: -32_602, id: '"meta-call"'},
	},
	{why: 'a progress token that is not a string or an integer is refused', line: '{"jsonrpc":"2.0","id":"token","method":"ping","params":{"_meta":{"progressToken":1.5}}}', answer: {error: -32_602, id: '"token"'}},
	{why: 'a valid _meta is accepted', line: '{"jsonrpc":"2.0","id":"meta-ok","method":"ping","params":{"_meta":{"progressToken":"t"}}}', answer: {result: true, id: '"meta-ok"'}},
	{why: 'a tools/list with an ill-typed cursor is refused', line: '{"jsonrpc":"2.0","id":"cursor","method":"tools/list","params":{"cursor":5}}', answer: {error: -32_602, id: '"cursor"'}},

	// Methods.
	{why: 'an unknown method is not found', line: '{"jsonrpc":"2.0","id":"unknown","method":"no/such-method"}', answer: {error: -32_601, id: '"unknown"'}},
	{why: 'a notification method sent with an id is not found, and not acted on', line: '{"jsonrpc":"2.0","id":"note-with-id","method":"notifications/initialized"}', answer: {error: -32_601, id: '"note-with-id"'}},
	{
		why: 'a cancellation sent with an id is not found, and cancels nothing',
		line: '{"jsonrpc":"2.0","id":"cancel-with-id","method":"notifications/cancelled","params":{"requestId":"x"}}',
		answer: {error: -32_601, id: '"cancel-with-id"'},
	},
	{why: 'hangar\'s private command is not available to MCP clients', line: '{"jsonrpc":"2.0","id":"command","method":"hangar/command","params":{"server":"fx","action":"stop"}}', answer: {error: -32_601, id: '"command"'}},
	{
		why: 'a second initialize is refused by the connection state',
		line: '{"jsonrpc":"2.0","id":"again","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}',
		answer: {error: -32_003, id: '"again"'},
	},

	// Never answered.
	{why: 'a notification is not answered', line: '{"jsonrpc":"2.0","method":"notifications/unknown-to-hangar"}', answer: 'none'},
	{why: 'a notification with params that are not an object is not answered', line: '{"jsonrpc":"2.0","method":"notifications/unknown-to-hangar","params":7}', answer: 'none'},
	{why: 'a notification whose _meta is not an object is not answered', line: '{"jsonrpc":"2.0","method":"notifications/progress","params":{"_meta":5}}', answer: 'none'},
	{why: 'a response nobody asked for is not answered', line: '{"jsonrpc":"2.0","id":"nobody-asked","result":{}}', answer: 'none'},
	{why: 'an error response with id null is not answered', line: '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}', answer: 'none'},
	{why: 'a response without an id is not answered', line: '{"jsonrpc":"2.0","result":{}}', answer: 'none'},
	{why: 'a response whose result is not an object is not answered', line: '{"jsonrpc":"2.0","id":"bad-result","result":3}', answer: 'none'},
	{why: 'a response with an unusable id is not answered', line: '{"jsonrpc":"2.0","id":9007199254740993,"result":{}}', answer: 'none'},
];
